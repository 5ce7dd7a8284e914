/**
 * {@code gradscope bench}: the engine's fixed workloads (GEMM, per-op overhead, an MLP step, norms,
 * a 10,000-node graph, two ONNX models' training steps, derivatives, Jacobians), timed after warm-up,
 * and PyTorch's runs of the same in turns (TorchBaseline, torch_bench.py). {@link BenchCommands}
 * adds bench and bench-ui to the app's command line. It may use the app and the engine; nothing
 * in the app or the engine uses it.
 */
package io.gradscope.bench;
