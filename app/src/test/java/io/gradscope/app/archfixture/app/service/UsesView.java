package io.gradscope.app.archfixture.app.service;

/** Breaks the app's layers: a service uses a view. */
public class UsesView {
    io.gradscope.app.archfixture.app.view.OldPanel panel;
}
