package shepherd.transport;

/**
 * Why a transport operation did not happen. Every failure the transport reports through a future or
 * {@link ConnectionHandler#onClose} is one of these, so callers can switch over the cause instead of parsing
 * messages. Most are expected outcomes of a distributed system (a peer that is slow, gone or misbehaving), so they
 * carry no stack trace unless they wrap one.
 */
public abstract sealed class TransportException extends Exception
        permits RequestTimeoutException, ConnectionClosedException, TooManyPendingRequestsException,
                WriteBufferFullException, ConnectFailedException, UnexpectedResponseException,
                InvalidFrameException {

    TransportException(String message) {
        super(message, null, false, false);
    }

    TransportException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
