/**
 * The broker: {@link shepherd.broker.Broker} wires the transport server, the ZooKeeper adapter and the
 * {@link shepherd.broker.BrokerLoop} that alone owns the coordinator core; {@link shepherd.broker.BrokerConfig} is
 * its validated configuration (keys in {@code modules/broker/BROKER-CONFIG.md}).
 */
package shepherd.broker;
