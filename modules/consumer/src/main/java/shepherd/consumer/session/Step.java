package shepherd.consumer.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** One decision of the core: the next state and the effects the runtime must execute, in order. */
public record Step(SessionState next, List<SessionEffect> effects) {
    public Step {
        Objects.requireNonNull(next, "next");
        effects = List.copyOf(effects);
    }

    /** Nothing happens: the event is ignored in this state (a stray or late event). */
    public static Step none(SessionState state) {
        return new Step(state, List.of());
    }

    /** The state is unchanged and the effects still happen (e.g. a rejection answered). */
    public static Step effects(SessionState state, SessionEffect... effects) {
        return new Step(state, List.of(effects));
    }

    public static Step to(SessionState next, SessionEffect... effects) {
        return new Step(next, List.of(effects));
    }

    public static Step to(SessionState next, List<SessionEffect> effects) {
        return new Step(next, effects);
    }

    /** This step followed by {@code later}, which was decided from this step's next state. */
    public Step then(Step later) {
        List<SessionEffect> all = new ArrayList<>(effects);
        all.addAll(later.effects);
        return new Step(later.next, all);
    }
}
