package shepherd.protocol;

import java.util.List;

/**
 * One group in a DescribeGroupsResponse: {@code group_id:string, error_code:int16, generation:int32, state:string,
 * members:[MemberDescription], partitions:[PartitionDescription]}. {@code state} is the coordinator's trigger state,
 * followed by the phase of the run in progress if there is one ({@code "IDLE"}, {@code "RUNNING/STOPPING"}); it is
 * text for people, not a code to branch on. A group the coordinator does not know is described with
 * UNKNOWN_CONSUMER, generation −1, an empty state and no members or partitions ({@link #unknown}).
 */
public record GroupDescription(
        String groupId, ErrorCode errorCode, int generation, String state, List<MemberDescription> members,
        List<PartitionDescription> partitions) {
    /** The generation of a group described with an error. */
    public static final int NO_GENERATION = -1;

    public GroupDescription {
        Checks.notNull(groupId, "GroupDescription.groupId");
        Checks.notNull(errorCode, "GroupDescription.errorCode");
        Checks.notNull(state, "GroupDescription.state");
        members = Checks.list(members, "GroupDescription.members");
        partitions = Checks.list(partitions, "GroupDescription.partitions");
    }

    /** A group the coordinator does not hold. */
    public static GroupDescription unknown(String groupId) {
        return new GroupDescription(groupId, ErrorCode.UNKNOWN_CONSUMER, NO_GENERATION, "", List.of(), List.of());
    }
}
