/**
 * Starting the window: the JavaFX application, the program it opens with, screenshots, start
 * times and the UI bench. It may use view and everything below it, and the engine
 * (AppLayersTest).
 */
package io.gradscope.app.launch;
