package io.gradscope.app.archfixture.app.view;

/** A view that uses a service: a new exception, which the frozen rule refuses. */
public class NewPanel {
    io.gradscope.app.archfixture.app.service.UsesView service;
}
