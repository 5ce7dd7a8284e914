package io.gradscope.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** open --help shows --screenshot and how to choose what it shows. */
class OpenHelpTest {
    @Test
    void openHelpShowsTheScreenshotOption() {
        Cli.Result r = Cli.run("open", "--help");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("--screenshot=PNG"), r.out());
        assertTrue(r.out().contains("gradscope.screenshot.steps"), r.out());
    }
}
