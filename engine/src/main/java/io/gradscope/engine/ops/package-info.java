/**
 * The op table and the ops: each op's OpSpec (name, parameters, shape rule, forward, VJP, JVP,
 * dependency rule for sparsity), OpSpecs and OpRegistry that list them, Ops (the calls the rest
 * of the engine makes), grad mode and the op observers. Ops compute through the tensor.Backend
 * interface, never a backend class. It may use alloc, recompute, trace, sparse, tensor and the engine root
 * package (EngineLayersTest).
 */
package io.gradscope.engine.ops;
