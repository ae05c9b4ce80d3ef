package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import shepherd.coordination.assign.TopicPartition;

class ZkPathsTest {
    @Test
    void everyPathOfTheLayout() {
        TopicPartition tp = TopicPartition.of("orders", "2-10");
        assertEquals("/brokers/ids/3", ZkPaths.broker(3));
        assertEquals("/brokers/topics/orders/2", ZkPaths.topicBroker("orders", 2));
        assertEquals("/consumers/groups/g/ids/c-1", ZkPaths.registration("g", "c-1"));
        assertEquals("/consumers/groups/g/owners/orders/2-10", ZkPaths.owner("g", tp));
        assertEquals("/consumers/groups/g/offsets/orders/2-10", ZkPaths.offset("g", tp));
    }

    @Test
    void chrootGoesIntoTheConnectString() {
        assertEquals("a:1,b:2/shepherd", ZkPaths.connectString("a:1,b:2", "/shepherd"));
        assertEquals("a:1", ZkPaths.connectString("a:1", null));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.connectString("a:1", "shepherd/"));
    }

    @Test
    void namesThatWouldAddressAnotherNodeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.group("a/b"));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.topic(".."));
        assertThrows(IllegalArgumentException.class, () -> ZkPaths.registration("g", ""));
    }

    @Test
    void watchPathsMapBackToTheirListener() {
        assertEquals("t", ZkPaths.topicOf("/brokers/topics/t"));
        assertEquals("t", ZkPaths.topicOf("/brokers/topics/t/1"));
        assertNull(ZkPaths.topicOf("/brokers/topics"));
        assertEquals("g", ZkPaths.groupOfIds("/consumers/groups/g/ids"));
        assertNull(ZkPaths.groupOfIds("/consumers/groups/g/owners"));
    }
}
