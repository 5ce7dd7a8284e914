/**
 * The launcher: the plain main behind ./gradscope, which hands over to a command-line subcommand
 * (cli) or the window (launch). It is the top of the app and may use any package (AppLayersTest).
 */
package io.gradscope.app;
