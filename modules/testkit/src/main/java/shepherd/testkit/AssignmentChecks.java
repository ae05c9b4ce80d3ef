package shepherd.testkit;

import java.util.List;
import shepherd.coordination.assign.Assignment;
import shepherd.coordination.assign.AssignmentInput;
import shepherd.coordination.assign.AssignmentInvariants;

/**
 * {@link Invariant#AssignmentWellFormed}, through the coordination module's own
 * {@link AssignmentInvariants#wellFormedViolations}: one violation per bad assignment, listing its problems.
 */
final class AssignmentChecks {
    /** Problems of one assignment spelled out in its violation's detail; the rest are counted. */
    private static final int ASSIGNMENT_PROBLEMS_LISTED = 10;

    private final ViolationLog log;

    AssignmentChecks(ViolationLog log) {
        this.log = log;
    }

    void assignmentComputed(String group, AssignmentInput input, Assignment assignment, long nowMs) {
        ObservationCheck check = log.check("assignmentComputed", nowMs).id("group", group);
        if (input == null) {
            check.problem("input is null");
        }
        if (assignment == null) {
            check.problem("assignment is null");
        }
        if (!check.ok()) {
            return;
        }
        List<AssignmentInvariants.Violation> problems = AssignmentInvariants.wellFormedViolations(input, assignment);
        if (problems.isEmpty()) {
            return;
        }
        StringBuilder detail = new StringBuilder("group ").append(group).append(": ").append(problems.size())
                .append(problems.size() == 1 ? " problem: " : " problems: ");
        for (int i = 0; i < problems.size() && i < ASSIGNMENT_PROBLEMS_LISTED; i++) {
            detail.append(i == 0 ? "" : "; ").append(describe(problems.get(i)));
        }
        if (problems.size() > ASSIGNMENT_PROBLEMS_LISTED) {
            detail.append("; and ").append(problems.size() - ASSIGNMENT_PROBLEMS_LISTED).append(" more");
        }
        log.record(Invariant.AssignmentWellFormed, nowMs, detail.toString());
    }

    private static String describe(AssignmentInvariants.Violation problem) {
        if (problem instanceof AssignmentInvariants.Unowned unowned) {
            return "partition " + unowned.partition() + " has no owner";
        }
        if (problem instanceof AssignmentInvariants.OwnedByUnsubscribed owned) {
            return "partition " + owned.partition() + " is owned by " + owned.owner()
                    + ", which is not subscribed to its topic";
        }
        if (problem instanceof AssignmentInvariants.UnknownPartition unknown) {
            return "unknown partition " + unknown.partition() + " is owned by " + unknown.owner();
        }
        return problem.toString();
    }
}
