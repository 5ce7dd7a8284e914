package io.gradscope.app.viewmodel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The engine's corpus of planted faults (engine/src/test/resources/faults/corpus.txt), the cases the app can run. */
public final class FaultCorpus {
    private FaultCorpus() {
    }

    /** A case of the faults corpus the app can run (no input files): its title, where the fault is, the program. */
    public record Fault(String title, Sweep.Mode phase, String node, String program) {
    }

    public static List<Fault> faults() throws IOException {
        List<Fault> out = new ArrayList<>();
        String title = null;
        Sweep.Mode phase = null;
        String node = null;
        StringBuilder program = new StringBuilder();
        boolean needsInput = false;
        List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("../engine/src/test/resources/faults/corpus.txt")));
        lines.add("### end");
        for (String line : lines) {
            if (line.startsWith("###")) {
                if (title != null && !needsInput) {
                    out.add(new Fault(title, phase, node, program.toString()));
                }
                title = line.substring(3).strip();
                program.setLength(0);
                needsInput = false;
            } else if (line.startsWith("origin: ")) {
                String[] w = line.split(" ");
                phase = w[1].equals("forward") ? Sweep.Mode.FORWARD : Sweep.Mode.BACKWARD;
                node = w[2];
            } else if (line.startsWith("input ")) {
                needsInput = true; // the app runs without input files
            } else if (title != null && !line.startsWith("#")) {
                program.append(line).append('\n');
            }
        }
        return out;
    }

}
