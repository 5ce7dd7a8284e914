package io.gradscope.app.archfixture.app.viewmodel;

import io.gradscope.engine.run.Program;

/** Breaks the view-models' rule: parses a program's text again instead of using the run's program. */
public class ParsesAgain {
    Program again(String text) {
        return Program.parse("again.grad", text);
    }
}
