package shepherd.protocol;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Builds raw frames by hand for the decode-error tests, independently of the codec's writer, so a test can put
 * any value (a bad count, a bad bool) in any field.
 */
final class WireBytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static WireBytes header(int kind, int apiKey, int apiVersion, int correlationId) {
        return new WireBytes().int8(kind).int16(apiKey).int16(apiVersion).int32(correlationId);
    }

    static WireBytes request(ApiKey api, int correlationId) {
        return header(0, api.id(), 0, correlationId);
    }

    static WireBytes response(ApiKey api, int correlationId) {
        return header(1, api.id(), 0, correlationId);
    }

    WireBytes int8(int value) {
        out.write(value);
        return this;
    }

    WireBytes int16(int value) {
        return int8(value >> 8).int8(value);
    }

    WireBytes int32(int value) {
        return int16(value >> 16).int16(value);
    }

    WireBytes int64(long value) {
        return int32((int) (value >> 32)).int32((int) value);
    }

    WireBytes string(String value) {
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return int16(utf8.length).raw(utf8);
    }

    WireBytes raw(byte... bytes) {
        out.writeBytes(bytes);
        return this;
    }

    WireBytes partitionOffset(String topic, String partition, long offset) {
        return string(topic).string(partition).int64(offset);
    }

    /** The bytes after the size field, what {@link FrameCodec#decode} takes. */
    byte[] body() {
        return out.toByteArray();
    }

    /** The whole frame with a correct size prefix, what {@link FrameCodec#decodeSized} takes. */
    byte[] sized() {
        byte[] body = body();
        return new WireBytes().int32(body.length).raw(body).body();
    }
}
