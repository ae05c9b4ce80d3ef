/**
 * The consumer runtime behind {@link shepherd.consumer.ShepherdConsumer}: the network loop that drives the session
 * core, the fetchers, the stream queues and the consumed-offset table. Not exported.
 */
package shepherd.consumer.internal;
