/**
 * Forward mode: tangents carried through ops in the same pass (Tangents, Dual), Jacobian-vector
 * products (Jvp) and Hessian-vector products two ways (Hvp). It may use autograd and the
 * packages below it, not check or scalar beside it (EngineLayersTest).
 */
package io.gradscope.engine.forward;
