package io.gradscope.bench;

import io.gradscope.app.cli.MoreCommands;
import io.gradscope.bench.ui.BenchUiCommand;
import java.util.List;
import java.util.concurrent.Callable;

/** The bench's commands on gradscope's command line: bench and bench-ui (META-INF/services names this class). */
public final class BenchCommands implements MoreCommands {
    @Override
    public List<Object> commands() {
        return List.of(new BenchCommand(), new BenchUiCommand());
    }

    @Override
    public Callable<Integer> plain(String... args) {
        return BenchUiCommand.plain(args);
    }
}
