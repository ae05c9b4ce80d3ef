package shepherd.testkit;

import shepherd.protocol.Request;
import shepherd.protocol.Response;

/**
 * What travels on a simulated connection: decoded messages with their correlation id (the codec is tested on its
 * own; the simulation is about order, loss and timing).
 */
public sealed interface SimMessage {
    record Req(int correlationId, Request request) implements SimMessage {}

    record Resp(int correlationId, Response response) implements SimMessage {}
}
