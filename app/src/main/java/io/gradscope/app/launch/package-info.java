/**
 * Starting the window: the JavaFX application, the program it opens with, screenshots and the
 * marks of the start's stages (StartTimes, which bench-ui reads). It may use view and everything
 * below it, and the engine (AppLayersTest).
 */
package io.gradscope.app.launch;
