/**
 * Broker configuration, its event loop and its lifecycle.
 */
package shepherd.broker;
