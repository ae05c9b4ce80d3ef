package shepherd.consumer;

/**
 * Nothing arrived within the wait the application asked for: {@code consumerTimeoutMs} of a stream's iterator, or
 * the wait of {@link ShepherdConsumer#awaitRegistered} once brokers did answer. Kafka 0.8's exception of the same
 * name; the stream stays usable.
 */
public final class ConsumerTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConsumerTimeoutException(String message) {
        super(message);
    }
}
