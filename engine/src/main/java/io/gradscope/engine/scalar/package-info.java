/**
 * Derivatives one number at a time: dual numbers, the micrograd-style scalar Value engine, and
 * small tensor ops written out as their scalar graph (ScalarExpansion), for teaching views and
 * as an independent check. It may use autograd and the packages below it, not check or forward
 * beside it; today it uses only ops, tensor and the engine root package (EngineLayersTest).
 */
package io.gradscope.engine.scalar;
