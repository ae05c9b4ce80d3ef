package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.List;
import shepherd.consumer.session.SessionEffect.Respond;
import shepherd.consumer.session.SessionEffect.StartFetchers;
import shepherd.consumer.session.SessionEffect.StopFetchers;
import shepherd.consumer.session.SessionEvent.ConsultAnswered;
import shepherd.consumer.session.SessionEvent.RegisterAnswered;
import shepherd.consumer.session.SessionEvent.RequestReceived;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.PingRequest;
import shepherd.protocol.Request;
import shepherd.protocol.StartRequest;
import shepherd.protocol.StopRequest;

/**
 * The consumer-side safety invariants (DESIGN §7), checked after every step. The checker keeps its own lease, its
 * own highest epoch and its own idea of which fetchers run (from the effects alone), so a core that forgets to do
 * the bookkeeping is caught, not trusted. It reads the core's status only to recognise acceptance of a Consult or
 * a Register (REGISTERING / REGISTERED reached), which is observable from outside as the next message sent.
 */
final class SessionChecker {
    static final String LEASE = "ExclusiveOwnership(lease)";
    static final String STALE = "NoStaleCommandApplied";
    static final String START = "NoStaleCommandApplied(start without stop)";
    /** The consumer's half of BarrierSound: Stop acknowledged (or Leave sent) only with every fetcher closed. */
    static final String BARRIER = "BarrierSound(consumer)";
    static final String AFTER_END = "NothingAfterTermination";
    /** A session that sent Leave ends as left (NONE) only on the coordinator's NONE answer to it. */
    static final String LEAVE_CONFIRMED = "LeaveConfirmed";
    private static final long NO_DEADLINE = Long.MIN_VALUE;

    private final long leaseMs;
    private int highestEpoch = -1;
    private long leaseDeadlineMs = NO_DEADLINE;
    /** Fetchers run: a StartFetchers not yet followed by a StopFetchers. */
    private boolean running;
    /** A StopFetchers not yet confirmed by FetchersStopped: fetchers may still be closing. */
    private boolean closing;
    /** Leave was sent: from then on only a NONE answer to it may end the session as left. */
    private boolean leaveSent;
    /** Highest generation whose Stop the core applied since it registered (a Start must be above it). */
    private int stoppedThrough = -1;
    final List<String> violations = new ArrayList<>();
    /** Situations the run reached, for the property's coverage statistics. */
    private final java.util.Set<String> seen = new java.util.HashSet<>();

    SessionChecker(long leaseMs) {
        this.leaseMs = leaseMs;
    }

    void afterStep(SessionState before, SessionEvent event, long nowMs, Step step) {
        SessionState after = step.next();
        if (before.terminated() && !step.effects().isEmpty()) {
            violate(AFTER_END, event + " produced " + step.effects());
        }
        if (event instanceof SessionEvent.FetchersStopped) {
            closing = false;
        }
        boolean leaseLive = before.status().isMember() && !before.terminated() && leaseDeadlineMs != NO_DEADLINE
                && nowMs < leaseDeadlineMs;
        observeDiscoveryAndRegistration(before, after, event, nowMs);
        if (event instanceof RequestReceived r && leaseLive && epochOf(r.request()) >= 0) {
            observeCommand(before, after, r, nowMs, step);
        }
        observeFetchers(step, nowMs);
        observeLeave(event, step);
        recordSituations(before, after, event, step);
        if (!after.status().isMember() || after.terminated()) {
            leaseDeadlineMs = NO_DEADLINE;
        }
        if (running && (leaseDeadlineMs == NO_DEADLINE || nowMs >= leaseDeadlineMs)) {
            violate(LEASE, "fetchers still run at " + nowMs + " with lease deadline " + leaseDeadlineMs
                    + ", status " + after.status());
        }
        if (after.status() == SessionStatus.FETCHING && !running) {
            violate(LEASE, "status FETCHING but no fetcher was started");
        }
    }

    private void observeDiscoveryAndRegistration(SessionState before, SessionState after, SessionEvent event,
            long nowMs) {
        if (event instanceof ConsultAnswered a && before.status() == SessionStatus.DISCOVERING
                && after.status() == SessionStatus.REGISTERING) {
            highestEpoch = Math.max(highestEpoch, a.response().coordinatorEpoch());
        }
        if (event instanceof RegisterAnswered r && after.status() == SessionStatus.REGISTERED
                && before.status() == SessionStatus.REGISTERING) {
            if (r.response().coordinatorEpoch() < highestEpoch) {
                violate(STALE, "registration of epoch " + r.response().coordinatorEpoch() + " accepted, highest "
                        + highestEpoch);
            }
            highestEpoch = Math.max(highestEpoch, r.response().coordinatorEpoch());
            leaseDeadlineMs = nowMs + leaseMs;
            stoppedThrough = -1;
        }
    }

    private void observeCommand(SessionState before, SessionState after, RequestReceived r, long nowMs, Step step) {
        int epoch = epochOf(r.request());
        ErrorCode answer = answer(step, r.correlationId());
        if (epoch < highestEpoch) {
            boolean applied = before.status() != after.status() || before.generation() != after.generation()
                    || before.leaseDeadlineMs() != after.leaseDeadlineMs()
                    || step.effects().stream().anyMatch(e -> e instanceof StartFetchers || e instanceof StopFetchers)
                    || answer != ErrorCode.STALE_COORDINATOR_EPOCH;
            if (applied) {
                violate(STALE, r.request() + " applied (answer " + answer + ") with highest epoch " + highestEpoch);
            }
            return;
        }
        highestEpoch = epoch;
        if (r.request() instanceof PingRequest && answer == ErrorCode.NONE) {
            leaseDeadlineMs = nowMs + leaseMs;
        }
        boolean stopApplied = answer == ErrorCode.NONE
                || step.effects().stream().anyMatch(e -> e instanceof StopFetchers);
        if (r.request() instanceof StopRequest stop && stopApplied) {
            stoppedThrough = Math.max(stoppedThrough, stop.generation());
        }
    }

    private void observeFetchers(Step step, long nowMs) {
        for (SessionEffect effect : step.effects()) {
            if (effect instanceof StopFetchers) {
                running = false;
                closing = true;
            } else if (effect instanceof Respond r && r.response() instanceof shepherd.protocol.StopResponse stop
                    && stop.errorCode() == ErrorCode.NONE && (running || closing)) {
                violate(BARRIER, "Stop acknowledged while fetchers " + (running ? "run" : "are closing"));
            } else if (effect instanceof SessionEffect.SendLeave && (running || closing)) {
                violate(BARRIER, "Leave sent while fetchers " + (running ? "run" : "are closing"));
            } else if (effect instanceof StartFetchers start) {
                if (running || closing) {
                    violate(START, "StartFetchers(" + start.generation() + ") while fetchers run");
                } else if (start.generation() <= stoppedThrough) {
                    violate(START, "StartFetchers(" + start.generation() + ") but stopped through " + stoppedThrough);
                }
                running = true;
            }
        }
    }

    private void observeLeave(SessionEvent event, Step step) {
        boolean confirmed = event instanceof SessionEvent.LeaveAnswered a && a.response().errorCode() == ErrorCode.NONE;
        for (SessionEffect effect : step.effects()) {
            if (effect instanceof SessionEffect.SendLeave) {
                leaveSent = true;
            } else if (effect instanceof SessionEffect.Terminate t && leaveSent && t.error() == ErrorCode.NONE
                    && !confirmed) {
                violate(LEAVE_CONFIRMED, "ended as left on " + event + " without the coordinator's NONE answer");
            }
        }
        if (confirmed && leaveSent) {
            seen.add("leave answered");
        }
    }

    private void recordSituations(SessionState before, SessionState after, SessionEvent event, Step step) {
        if (after.status() == SessionStatus.FETCHING) {
            seen.add("fetched");
        }
        if (before.status() == SessionStatus.FETCHING && after.status() == SessionStatus.DISCOVERING
                && !(event instanceof SessionEvent.ConnectionClosed)) {
            seen.add("lease expired while fetching");
        }
        if (event instanceof RequestReceived r) {
            ErrorCode answer = answer(step, r.correlationId());
            if (answer == ErrorCode.STALE_COORDINATOR_EPOCH) {
                seen.add("stale rejected");
            }
            if (r.request() instanceof StartRequest && answer != null && answer != ErrorCode.NONE
                    && answer != ErrorCode.STALE_COORDINATOR_EPOCH) {
                seen.add("start rejected");
            }
            if (r.request() instanceof StopRequest && answer == null && after.fetchersStopping()) {
                seen.add("stop awaited fetchers");
            }
        }
    }

    private static ErrorCode answer(Step step, int correlationId) {
        for (SessionEffect effect : step.effects()) {
            if (effect instanceof Respond r && r.correlationId() == correlationId) {
                return r.response().errorCode();
            }
        }
        return null;
    }

    private static int epochOf(Request request) {
        if (request instanceof PingRequest p) {
            return p.coordinatorEpoch();
        }
        if (request instanceof StopRequest s) {
            return s.coordinatorEpoch();
        }
        if (request instanceof StartRequest s) {
            return s.coordinatorEpoch();
        }
        return -1;
    }

    private void violate(String invariant, String detail) {
        violations.add(invariant + ": " + detail);
    }

    boolean seen(String situation) {
        return seen.contains(situation);
    }

    boolean violated(String invariant) {
        return violations.stream().anyMatch(v -> v.startsWith(invariant + ":"));
    }
}
