package shepherd.testkit;

/**
 * One operation of a {@code multi}. Sealed so the simulation can apply every kind without a default branch that
 * would hide a forgotten one. A version of -1 matches any version.
 */
public sealed interface SimZkOp permits SimZkOp.Check, SimZkOp.Create, SimZkOp.SetData, SimZkOp.Delete {
    String path();

    /** Fails the whole multi unless the node exists with this version: the fencing primitive. */
    record Check(String path, int version) implements SimZkOp {
    }

    record Create(String path, Object data, boolean ephemeral) implements SimZkOp {
    }

    record SetData(String path, Object data, int version) implements SimZkOp {
    }

    record Delete(String path, int version) implements SimZkOp {
    }
}
