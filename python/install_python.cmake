# install_python.cmake: make install's part for the Python package (cmake --install runs
# it, after the variables CMakeLists.txt sets before it). Decided at install time, so
# that `cmake --install --prefix P` chooses for P:
#  - ONNXSHAPE_PYTHON_DIR when set (relative to the prefix, or absolute);
#  - a virtual environment's site-packages when P is one (P/pyvenv.cfg);
#  - else where the system's python3 looks under a prefix (OSH_PY_DEFAULT, from its
#    sysconfig at configure time: on Debian lib/python3.X/dist-packages, which its
#    site.py searches under /usr/local).
# Beside the package: _location.py, naming the library and the tool relative to the
# package (the prefix stays relocatable), and a .dist-info, so importlib.metadata and
# pip see the install (pip uninstall reads its RECORD).
set(osh_prefix "${CMAKE_INSTALL_PREFIX}")
set(osh_root "$ENV{DESTDIR}")
if(OSH_PY_DIR)
  set(osh_rel "${OSH_PY_DIR}")
else()
  file(GLOB osh_venv_site "${osh_root}${osh_prefix}/lib/python3*/site-packages")
  if(EXISTS "${osh_root}${osh_prefix}/pyvenv.cfg" AND osh_venv_site)
    list(GET osh_venv_site 0 osh_venv_site)
    file(RELATIVE_PATH osh_rel "${osh_root}${osh_prefix}" "${osh_venv_site}")
  else()
    set(osh_rel "${OSH_PY_DEFAULT}")
  endif()
endif()
set(osh_absolute OFF)
foreach(v osh_rel OSH_LIBDIR OSH_BINDIR)
  if(IS_ABSOLUTE "${${v}}")
    set(osh_absolute ON)
  endif()
endforeach()
foreach(v osh_rel OSH_LIBDIR OSH_BINDIR)
  if(IS_ABSOLUTE "${${v}}")
    set(${v}_full "${${v}}")
  else()
    set(${v}_full "${osh_prefix}/${${v}}")
  endif()
endforeach()
set(osh_pkg "${osh_rel_full}/onnxshape")
if(osh_absolute)
  set(osh_lib "${OSH_LIBDIR_full}/${OSH_SONAME}")
  set(osh_cli "${OSH_BINDIR_full}/onnxshape")
else()
  file(RELATIVE_PATH osh_lib "${osh_pkg}" "${OSH_LIBDIR_full}/${OSH_SONAME}")
  file(RELATIVE_PATH osh_cli "${osh_pkg}" "${OSH_BINDIR_full}/onnxshape")
endif()

file(INSTALL "${OSH_PY_SRC}/onnxshape" DESTINATION "${osh_rel_full}"
  FILES_MATCHING PATTERN "*.py" PATTERN "py.typed" PATTERN "__pycache__" EXCLUDE PATTERN "_location.py" EXCLUDE)
file(WRITE "${OSH_PY_STAGE}/_location.py"
  "\"\"\"_location.py: where make install's package finds libonnxshape and the onnxshape tool,
relative to this file's folder unless absolute (written by python/install_python.cmake).\"\"\"
LIBRARY = \"${osh_lib}\"
CLI = \"${osh_cli}\"
")
set(osh_dist "onnxshape-${OSH_VERSION}.dist-info")
file(REMOVE_RECURSE "${OSH_PY_STAGE}/${osh_dist}")
file(WRITE "${OSH_PY_STAGE}/${osh_dist}/METADATA"
  "Metadata-Version: 2.1\nName: onnxshape\nVersion: ${OSH_VERSION}\nSummary: ${OSH_SUMMARY}\nRequires-Python: >=3.11\n")
file(WRITE "${OSH_PY_STAGE}/${osh_dist}/INSTALLER" "cmake\n")
file(WRITE "${OSH_PY_STAGE}/${osh_dist}/top_level.txt" "onnxshape\n")
file(INSTALL "${OSH_PY_STAGE}/_location.py" DESTINATION "${osh_pkg}")
# The installed package's files, for RECORD (hashes are optional there; pip reads paths).
file(GLOB osh_files RELATIVE "${osh_root}${osh_rel_full}" "${osh_root}${osh_pkg}/*.py" "${osh_root}${osh_pkg}/py.typed")
set(osh_record "")
foreach(f ${osh_files} ${osh_dist}/METADATA ${osh_dist}/INSTALLER ${osh_dist}/top_level.txt ${osh_dist}/RECORD)
  string(APPEND osh_record "${f},,\n")
endforeach()
file(WRITE "${OSH_PY_STAGE}/${osh_dist}/RECORD" "${osh_record}")
file(GLOB osh_stale_dist "${osh_root}${osh_rel_full}/onnxshape-*.dist-info")
foreach(d ${osh_stale_dist})
  if(NOT d STREQUAL "${osh_root}${osh_rel_full}/${osh_dist}")
    file(REMOVE_RECURSE "${d}")
  endif()
endforeach()
file(INSTALL "${OSH_PY_STAGE}/${osh_dist}" DESTINATION "${osh_rel_full}")
