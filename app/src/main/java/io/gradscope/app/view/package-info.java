/**
 * The window in JavaFX: the main window and its menus, the program editor, the graph panel, the
 * inspector, the transport and tool bars, and the memory, Jacobian, comparison and tangent
 * panels. It may use export, draw, viewmodel, service and layout; it should read only
 * view-models, and today's exceptions (views that use engine and service types) are listed in
 * the frozen rule of AppLayersTest, where no new one may be added.
 */
package io.gradscope.app.view;
