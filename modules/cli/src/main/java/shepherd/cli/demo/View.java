package shepherd.cli.demo;

/** How the demo shows itself while it runs: {@link LiveView} on a terminal, {@link PlainView} otherwise. */
interface View {
    void start();

    /** Stops drawing and gives the terminal back (cursor, standard error). Idempotent. */
    void stop();
}
