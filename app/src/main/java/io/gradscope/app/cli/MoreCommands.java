package io.gradscope.app.cli;

import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * Commands another module adds to {@code gradscope}'s own, found on the class path with
 * {@link ServiceLoader} (a {@code META-INF/services/io.gradscope.app.cli.MoreCommands} file naming
 * the implementation). The bench module adds {@code bench} and {@code bench-ui} this way, so the
 * app does not depend on it; the launcher puts its jar on the class path when it has been built.
 */
public interface MoreCommands {
    /** The commands (picocli {@code @Command} objects), listed after gradscope's own, in this order. */
    List<Object> commands();

    /**
     * The command {@code args} name in a plain form that runs without picocli's model of every
     * command ({@link PlainWindowCommand}), with picocli's defaults; null for any other form.
     */
    default Callable<Integer> plain(String... args) {
        return null;
    }

    /** Those on the class path, in its order. */
    static List<MoreCommands> found() {
        return ServiceLoader.load(MoreCommands.class).stream().map(ServiceLoader.Provider::get).toList();
    }
}
