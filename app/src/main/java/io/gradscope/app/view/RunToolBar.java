package io.gradscope.app.view;

import io.gradscope.app.viewmodel.SessionViewModel;
import io.gradscope.engine.tensor.DType;
import io.gradscope.engine.tensor.Device;
import javafx.scene.control.Button;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.TextField;
import javafx.scene.control.ToolBar;

/** Run and Cancel, the dtype and the device, the run's progress, finding a node, and the view's Fit and zoom. */
final class RunToolBar extends ToolBar {

    RunToolBar(SessionViewModel vm, GraphPanel graph) {
        Button run = new Button("Run ▶");
        run.setId("run");
        run.setOnAction(e -> vm.run());
        run.disableProperty().bind(vm.running());
        Button cancel = new Button("Cancel");
        cancel.setId("cancel");
        cancel.setOnAction(e -> vm.cancel());
        // Cancel (and Esc) stops any long work: its progress is in the bar beside.
        cancel.disableProperty().bind(vm.cancellable().not());
        ComboBox<DType> dtype = new ComboBox<>();
        dtype.getItems().addAll(SessionViewModel.DTYPES);
        follow(dtype, vm.dtype().get(), vm::setDType);
        vm.dtype().addListener((o, a, b) -> dtype.setValue(b));
        ComboBox<Device> device = new ComboBox<>();
        device.setId("device");
        device.getItems().addAll(Device.computing());
        follow(device, vm.device().get(), vm::setDevice);
        vm.device().addListener((o, a, b) -> device.setValue(b));
        ProgressBar progress = new ProgressBar();
        progress.setPrefWidth(120);
        // Whatever Cancel would stop: a run, a check, a comparison, a Jacobian, a Hessian, the trade-off curve.
        progress.visibleProperty().bind(vm.cancellable());
        progress.progressProperty().bind(vm.workProgress());
        TextField find = new TextField();
        find.setId("find");
        find.setPromptText("Find node by name…");
        // Enter: the next match, Shift+Enter: the previous; beside the field, which of how many.
        find.addEventFilter(javafx.scene.input.KeyEvent.KEY_PRESSED, e -> {
            if (e.getCode() == javafx.scene.input.KeyCode.ENTER) {
                e.consume();
                if (vm.sweep().find(find.getText(), e.isShiftDown() ? -1 : 1)) {
                    graph.reveal(vm.sweep().keyOf(vm.sweep().selected().get()));
                }
            }
        });
        find.textProperty().addListener((o, a, b) -> vm.sweep().forgetFind());
        Label count = new Label();
        count.setId("find-count");
        count.textProperty().bind(vm.sweep().findCount());
        count.setMinWidth(Label.USE_PREF_SIZE);
        // Another program opened: the last one's query (a name it had) is not kept.
        vm.fileName().addListener((o, a, b) -> find.clear());
        Button fit = new Button("Fit");
        fit.setOnAction(e -> graph.fitAsked());
        Button zoomIn = new Button("+");
        zoomIn.setOnAction(e -> graph.zoomIn());
        Button zoomOut = new Button("−");
        zoomOut.setOnAction(e -> graph.zoomOut());
        getItems().addAll(run, cancel, new Label("dtype"), dtype, new Label("device"), device, progress, new Label("   "), find, count, fit,
                zoomIn, zoomOut);
    }

    private static <T> void follow(ComboBox<T> box, T initial, java.util.function.Consumer<T> command) {
        box.setValue(initial);
        box.valueProperty().addListener((o, a, b) -> {
            if (b != null) {
                command.accept(b);
            }
        });
    }
}
