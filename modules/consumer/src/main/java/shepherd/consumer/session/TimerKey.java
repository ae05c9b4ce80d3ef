package shepherd.consumer.session;

/** The timers the core asks the runtime for. Setting a key again replaces its deadline; there is one of each. */
public enum TimerKey {
    /** The consumer lease: fires when no valid ping arrived for L (DESIGN §5). */
    LEASE,
    /** The end of the backoff before the next discovery round. */
    DISCOVERY_BACKOFF
}
