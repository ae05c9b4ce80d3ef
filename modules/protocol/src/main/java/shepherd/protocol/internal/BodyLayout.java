package shepherd.protocol.internal;

import shepherd.protocol.Message;

/** How one message type's body is written and read; {@link Bodies} holds one per (kind, api key). */
public record BodyLayout<T extends Message>(
        String name, Class<T> type, Writer.StructWriter<T> writer, Reader.StructReader<T> reader) {

    static <T extends Message> BodyLayout<T> of(
            Class<T> type, Writer.StructWriter<T> writer, Reader.StructReader<T> reader) {
        return new BodyLayout<>(type.getSimpleName(), type, writer, reader);
    }

    /** Writes {@code message}, which the caller matched to this layout by its kind and api key. */
    public void write(Writer out, Message message) {
        writer.write(out, type.cast(message));
    }

    public T read(Reader in) throws Malformed {
        return reader.read(in);
    }
}
