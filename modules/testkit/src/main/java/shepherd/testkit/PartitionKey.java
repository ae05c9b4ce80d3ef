package shepherd.testkit;

/** A group's partition, as the checker's observations name it. */
record PartitionKey(String group, String topic, String partition) {
    @Override
    public String toString() {
        return group + ":" + topic + "/" + partition;
    }
}
