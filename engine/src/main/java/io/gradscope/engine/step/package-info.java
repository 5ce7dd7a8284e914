/**
 * A PyTorch training step captured by python/gradscope_torch.py: the folder read and run as a program
 * (the real batch, the real loss), and Gradscope's values and gradients compared with PyTorch's. At
 * the top of the engine: it may use every other engine package (EngineLayersTest).
 */
package io.gradscope.engine.step;
