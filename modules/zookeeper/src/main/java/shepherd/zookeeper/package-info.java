/**
 * ZooKeeper paths, codecs, election and the metadata store.
 */
package shepherd.zookeeper;
