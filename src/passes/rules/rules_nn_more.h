/* rules_nn_more.h: the rule functions of ops_nn_more.def: recurrent layers,
 * losses, box selection, attention, deformable convolution and the training
 * operators.
 *
 *   rules_rnn.c          RNN, GRU, LSTM
 *   rules_loss.c         NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
 *   rules_nms.c          NonMaxSuppression
 *   rules_attention.c    Attention, RotaryEmbedding, TensorScatter (the KV cache update),
 *                        LinearAttention, ai.onnx.preview FlexAttention
 *   rules_bitcast.c      BitCast
 *   rules_deform_conv.c  DeformConv
 *   rules_training.c     ai.onnx.preview.training: Adagrad, Adam, Momentum,
 *                        Gradient
 *
 * ops_nn_more.def also maps Swish to infer_unary_elementwise and CumProd to
 * infer_cumsum (same inputs and attributes as CumSum). They use the neural-network
 * family's helpers (rules_nn.h).
 */
#ifndef OSH_PASSES_RULES_NN_MORE_H
#define OSH_PASSES_RULES_NN_MORE_H

#include "passes/rules/rules_elementwise.h"
#include "passes/rules/rules_nn.h"

/* rules_rnn.c */
void infer_rnn(infer_ctx *c);
void infer_gru(infer_ctx *c);
void infer_lstm(infer_ctx *c);

/* rules_loss.c */
void infer_nll_loss(infer_ctx *c);
void infer_softmax_cross_entropy_loss(infer_ctx *c);

/* rules_nms.c */
void infer_non_max_suppression(infer_ctx *c);

/* rules_attention.c */
void infer_attention(infer_ctx *c);
void infer_rotary_embedding(infer_ctx *c);
void infer_tensor_scatter(infer_ctx *c);
void infer_linear_attention(infer_ctx *c);
void infer_flex_attention(infer_ctx *c);

/* rules_bitcast.c */
void infer_bitcast(infer_ctx *c);

/* rules_deform_conv.c */
void infer_deform_conv(infer_ctx *c);

/* rules_training.c */
void infer_adagrad(infer_ctx *c);
void infer_adam(infer_ctx *c);
void infer_momentum(infer_ctx *c);
void infer_gradient(infer_ctx *c);

#endif
