# gen_rule_protos.cmake: writes the prototype of every rule the rule table names.
#
#   cmake -DOUT=rule_protos.h -P gen_rule_protos.cmake ops_a.def ops_b.def ...
#
# Every rule is named by the last argument of its rows (ONNX(Op, since, rule),
# OP(domain, op, since, rule), ORT_EXTRA(op, last, floats_only, rule), and a macro
# defined as one): each name is declared once, with the rule signature, so that a row
# naming a rule no file defines fails at link, and no header restates the rules. The
# file is rewritten only when its text changes, so that an edit to a row's comment
# recompiles nothing.
set(names "")
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  set(arg "${CMAKE_ARGV${i}}")
  if(NOT arg MATCHES "\\.def$")
    continue()
  endif()
  # A row, or a macro whose expansion is one (ops_paddle.def's PADDLE).
  set(row_re "^(#define [A-Z_]+\\([^)]*\\) )?(ONNX|ONNX_ML|ONNX_PREVIEW|ONNX_TRAINING|OP|ORT_EXTRA)\\([^()]*,[ \t]*([a-z_][a-z_0-9]*)\\)")
  file(STRINGS "${arg}" rows REGEX "${row_re}")
  foreach(row IN LISTS rows)
    string(REGEX MATCH "${row_re}" row "${row}")
    set(name "${CMAKE_MATCH_3}")
    list(APPEND names "${name}")
  endforeach()
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
set(text "/* rule_protos.h: GENERATED at build time by src/passes/rules/gen_rule_protos.cmake
 * from the rows of src/passes/rules/ops_*.def; do not edit. Every rule a row names,
 * declared once. */
#ifndef OSH_PASSES_RULES_RULE_PROTOS_H
#define OSH_PASSES_RULES_RULE_PROTOS_H

#include \"passes/rule_api/rule_api.h\"

")
foreach(name IN LISTS names)
  string(APPEND text "void ${name}(infer_ctx *c);\n")
endforeach()
string(APPEND text "\n#endif\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
