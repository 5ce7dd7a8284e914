/**
 * Work off the UI thread: running programs and laying out graphs in the background and handing
 * immutable results back, the CUDA fall-back, ONNX import in the app, runs that carry a tangent,
 * and errors as the app shows them. It may use layout and the engine; never view, draw, export,
 * viewmodel or javafx.scene (AppLayersTest).
 */
package io.gradscope.app.service;
