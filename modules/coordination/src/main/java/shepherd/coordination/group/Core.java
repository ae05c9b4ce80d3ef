package shepherd.coordination.group;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import shepherd.coordination.Coordinator.Role;
import shepherd.coordination.CoordinatorConfig;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.defect.Defect;
import shepherd.protocol.ErrorCode;
import shepherd.protocol.Response;

/**
 * What every part of the coordinator shares: its configuration, where it stands in its epoch (role, epoch number,
 * the live-session bound of DESIGN §5), and, within one call of {@code onEvent}, the time and the effects emitted so
 * far. Only {@link shepherd.coordination.Coordinator} changes the role and the epoch; the parts read them.
 */
public final class Core {
    private final CoordinatorConfig config;
    private final Set<Defect> defects;

    private Role role = Role.FOLLOWER;
    private int epoch = -1;
    private boolean zkConnected = true;
    private long lastZkAckMs = Long.MIN_VALUE;

    private List<CoordinatorEffect> out;
    private long now;

    public Core(CoordinatorConfig config, Set<Defect> defects) {
        this.config = config;
        this.defects = defects.isEmpty() ? EnumSet.noneOf(Defect.class) : EnumSet.copyOf(defects);
    }

    // ------------------------------------------------------------------ one step

    /** Begins a step at {@code nowMs}: effects are collected until {@link #endStep}. */
    public void beginStep(long nowMs) {
        out = new ArrayList<>();
        now = nowMs;
    }

    /** The effects of the step, in the order they were emitted. */
    public List<CoordinatorEffect> endStep() {
        List<CoordinatorEffect> effects = out;
        out = null;
        return effects;
    }

    public long now() {
        return now;
    }

    public void emit(CoordinatorEffect effect) {
        out.add(effect);
    }

    public void notice(String message) {
        emit(new CoordinatorEffect.Notice(message));
    }

    public void respond(long connectionId, int correlationId, Response response) {
        emit(new CoordinatorEffect.Respond(connectionId, correlationId, response));
    }

    public void setTimer(CoordinatorTimer timer, long deadlineMs) {
        emit(new CoordinatorEffect.SetTimer(timer, deadlineMs));
    }

    public void cancelTimer(CoordinatorTimer timer) {
        emit(new CoordinatorEffect.CancelTimer(timer));
    }

    // ------------------------------------------------------------------ standing

    public CoordinatorConfig config() {
        return config;
    }

    public boolean defect(Defect defect) {
        return defects.contains(defect);
    }

    public Role role() {
        return role;
    }

    /** {@link Role#transitionTo}: the only way the role changes. */
    public void transitionTo(Role to) {
        role = role.transitionTo(to);
    }

    public int epoch() {
        return epoch;
    }

    public void beginEpoch(int won) {
        epoch = won;
        zkConnected = true;
    }

    public boolean isCoordinator() {
        return role != Role.FOLLOWER && role != Role.CLOSED;
    }

    /** Registrations, commits and leaves are taken (in LEASE_WAIT no Start leaves yet, but members may join). */
    public boolean serving() {
        return role == Role.ACTIVE || role == Role.LEASE_WAIT;
    }

    // ------------------------------------------------------------------ the session bound (DESIGN §5)

    /** ZooKeeper answered a request sent at {@code sentAtMs}: the session surely lived when it left. */
    public void sessionProved(long sentAtMs) {
        lastZkAckMs = Math.max(lastZkAckMs, sentAtMs);
    }

    public void zkConnected(boolean connected) {
        zkConnected = connected;
    }

    public boolean zkConnected() {
        return zkConnected;
    }

    /** The live-session bound of DESIGN §5 at {@code nowMs}; the negative control without fencing ignores it. */
    public boolean canCommandAt(long nowMs) {
        return isCoordinator() && (defect(Defect.NO_FENCING)
                || zkConnected && nowMs < config.commandableUntilMs(lastZkAckMs));
    }

    public boolean canCommand() {
        return canCommandAt(now);
    }

    // ------------------------------------------------------------------ the refusals of a consumer's request

    /**
     * Why a consumer's request cannot be served now, if it cannot: still loading (retriable), not coordinator, or
     * deposed — the consumer has seen a newer epoch than ours ({@code highestEpochSeen}; −1 when the request does
     * not say), which proves we are a zombie that does not know it yet.
     */
    public Optional<ErrorCode> notServing(int highestEpochSeen) {
        if (role == Role.LOADING) {
            return Optional.of(ErrorCode.COORDINATOR_NOT_READY);
        }
        if (!serving()) {
            return Optional.of(ErrorCode.NOT_COORDINATOR);
        }
        if (highestEpochSeen > epoch) {
            notice("a consumer has seen epoch " + highestEpochSeen + ", newer than ours (" + epoch + ")");
            return Optional.of(ErrorCode.NOT_COORDINATOR);
        }
        return Optional.empty();
    }

    /**
     * {@link #notServing}, for a request that names the epoch it was meant for: one of ours must name exactly
     * ours; an older one is STALE_COORDINATOR_EPOCH, a newer one proves us deposed.
     */
    public Optional<ErrorCode> notServingEpoch(int requestEpoch) {
        Optional<ErrorCode> notNow = notServing(-1);
        if (notNow.isEmpty() && requestEpoch != epoch) {
            return Optional.of(requestEpoch < epoch ? ErrorCode.STALE_COORDINATOR_EPOCH : ErrorCode.NOT_COORDINATOR);
        }
        return notNow;
    }
}
