/**
 * The public consumer API.
 */
package shepherd.consumer;
