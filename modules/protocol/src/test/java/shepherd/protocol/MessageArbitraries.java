package shepherd.protocol;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators of every message, with the values that break codecs: empty and maximal (32767-byte) strings, multi-byte
 * and supplementary characters, empty lists, null where nullable, and the extremes of every integer type.
 */
final class MessageArbitraries {
    static final int STRING_BYTES_MAX = Short.MAX_VALUE;
    private static final int LIST_SIZE_MAX = 6;

    private final boolean maximalStrings;

    private MessageArbitraries(boolean maximalStrings) {
        this.maximalStrings = maximalStrings;
    }

    /** Everything, maximal strings included: for round trips (use a codec with a large frame limit). */
    static MessageArbitraries full() {
        return new MessageArbitraries(true);
    }

    /** Small frames only: for fuzzing, where each case should be cheap. */
    static MessageArbitraries small() {
        return new MessageArbitraries(false);
    }

    Arbitrary<Frame> frames() {
        Arbitrary<Integer> correlationIds = Arbitraries.integers();
        Arbitrary<Frame> requests = Combinators.combine(correlationIds, requests()).as(Frame::request);
        Arbitrary<Frame> responses = Combinators.combine(correlationIds, responses()).as(Frame::response);
        return Arbitraries.oneOf(requests, responses);
    }

    Arbitrary<Request> requests() {
        return Arbitraries.oneOf(List.of(
                Arbitraries.just(new ConsultRequest()),
                registerRequests(),
                Combinators.combine(ints(), ints(), shorts()).as(PingRequest::new),
                Combinators.combine(ints(), ints()).as(StopRequest::new),
                Combinators.combine(ints(), ints(), list(assignments())).as(StartRequest::new),
                Combinators.combine(strings(), strings(), ints(), ints(), list(offsets()))
                        .as(OffsetCommitRequest::new),
                Combinators.combine(strings(), strings(), nullableList(offsets())).as(LeaveRequest::new),
                list(strings()).map(DescribeGroupsRequest::new)));
    }

    Arbitrary<Response> responses() {
        return Arbitraries.oneOf(List.of(
                Combinators.combine(errorCodes(), ints(), ints(), list(brokers())).as(ConsultResponse::new),
                Combinators.combine(errorCodes(), ints(), strings()).as(RegisterResponse::new),
                Combinators.combine(errorCodes(), ints(), nullableList(offsets())).as(PingResponse::new),
                Combinators.combine(errorCodes(), nullableList(offsets())).as(StopResponse::new),
                errorCodes().map(StartResponse::new),
                Combinators.combine(errorCodes(), list(results())).as(OffsetCommitResponse::new),
                errorCodes().map(LeaveResponse::new),
                Combinators.combine(errorCodes(), ints(), ints(), list(groupDescriptions()))
                        .as(DescribeGroupsResponse::new)));
    }

    Arbitrary<RegisterRequest> registerRequests() {
        return Combinators.combine(strings(), strings(), subscriptions(), Arbitraries.of(true, false),
                Arbitraries.of(OffsetReset.class), ints(), shorts(), ints()).as(RegisterRequest::new);
    }

    Arbitrary<Subscription> subscriptions() {
        Arbitrary<Subscription> named = list(Combinators.combine(strings(), ints()).as(TopicStreams::new))
                .map(StaticSubscription::new);
        Arbitrary<Subscription> wildcard = Combinators.combine(Arbitraries.of(WildcardKind.class), strings(), ints())
                .as(WildcardSubscription::new);
        return Arbitraries.oneOf(named, wildcard);
    }

    Arbitrary<GroupDescription> groupDescriptions() {
        return Combinators.combine(strings(), errorCodes(), ints(), strings(), list(memberDescriptions()),
                list(partitionDescriptions())).as(GroupDescription::new);
    }

    Arbitrary<MemberDescription> memberDescriptions() {
        return Combinators.combine(strings(), strings(), subscriptions(), ints(), longs()).as(MemberDescription::new);
    }

    Arbitrary<PartitionDescription> partitionDescriptions() {
        return Combinators.combine(strings(), strings(), strings().injectNull(0.3), ints(), longs())
                .as(PartitionDescription::new);
    }

    Arbitrary<BrokerInfo> brokers() {
        return Combinators.combine(ints(), strings(), ints(), strings()).as(BrokerInfo::new);
    }

    Arbitrary<PartitionOffset> offsets() {
        return Combinators.combine(strings(), strings(), longs()).as(PartitionOffset::new);
    }

    Arbitrary<PartitionAssignment> assignments() {
        return Combinators.combine(strings(), strings(), longs(), ints()).as(PartitionAssignment::new);
    }

    Arbitrary<PartitionResult> results() {
        return Combinators.combine(strings(), strings(), errorCodes()).as(PartitionResult::new);
    }

    static Arbitrary<ErrorCode> errorCodes() {
        return Arbitraries.of(ErrorCode.class);
    }

    static Arbitrary<Integer> ints() {
        return Arbitraries.integers();
    }

    static Arbitrary<Short> shorts() {
        return Arbitraries.shorts();
    }

    static Arbitrary<Long> longs() {
        return Arbitraries.longs();
    }

    <T> Arbitrary<List<T>> list(Arbitrary<T> elements) {
        return elements.list().ofMaxSize(LIST_SIZE_MAX);
    }

    <T> Arbitrary<List<T>> nullableList(Arbitrary<T> elements) {
        return list(elements).injectNull(0.25);
    }

    /** Any valid string: ASCII, every UTF-8 width, supplementary characters, empty, and (if enabled) maximal. */
    Arbitrary<String> strings() {
        Arbitrary<String> ordinary = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.strings().alpha().numeric().withChars("-._").ofMaxLength(12)),
                Tuple.of(4, unicodeStrings(12)),
                Tuple.of(1, Arbitraries.just("")));
        if (!maximalStrings) {
            return ordinary;
        }
        return Arbitraries.frequencyOf(
                Tuple.of(20, ordinary),
                Tuple.of(1, maximalStrings()));
    }

    /** Strings of code points of every UTF-8 width (1 to 4 bytes), surrogates excluded as they are not characters. */
    static Arbitrary<String> unicodeStrings(int codePointsMax) {
        return codePoints().list().ofMaxSize(codePointsMax).map(MessageArbitraries::fromCodePoints);
    }

    /** Strings of exactly {@value #STRING_BYTES_MAX} UTF-8 bytes, made of a random mix of code points. */
    static Arbitrary<String> maximalStrings() {
        return codePoints().list().ofMinSize(1).ofMaxSize(8).map(MessageArbitraries::fillToMaximum);
    }

    static Arbitrary<Integer> codePoints() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.integers().between(0, 0x7F)),
                Tuple.of(2, Arbitraries.integers().between(0x80, 0x7FF)),
                Tuple.of(2, Arbitraries.integers().between(0x800, 0xFFFF)
                        .filter(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)),
                Tuple.of(2, Arbitraries.integers().between(0x10000, Character.MAX_CODE_POINT)));
    }

    static String fromCodePoints(List<Integer> codePoints) {
        StringBuilder text = new StringBuilder();
        codePoints.forEach(text::appendCodePoint);
        return text.toString();
    }

    /** Cycles through {@code codePoints} while they fit, then pads with ASCII to exactly the maximum. */
    static String fillToMaximum(List<Integer> codePoints) {
        StringBuilder text = new StringBuilder();
        int bytes = 0;
        for (int i = 0; bytes + utf8Bytes(codePoints.get(i % codePoints.size())) <= STRING_BYTES_MAX; i++) {
            int codePoint = codePoints.get(i % codePoints.size());
            text.appendCodePoint(codePoint);
            bytes += utf8Bytes(codePoint);
        }
        return text.append("x".repeat(STRING_BYTES_MAX - bytes)).toString();
    }

    static int utf8Bytes(int codePoint) {
        return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    }
}
