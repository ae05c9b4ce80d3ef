package shepherd.zookeeper;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import shepherd.coordination.CoordinatorEffect;
import shepherd.coordination.CoordinatorTimer;
import shepherd.coordination.ZkRead;

class EffectRouterTest {

    @Test
    void eachEffectReachesItsDestinationInTheCoresOrder() {
        List<String> executed = new ArrayList<>();
        EffectRouter router = new EffectRouter(z -> executed.add("zookeeper " + z),
                n -> executed.add("network " + n), t -> executed.add("timer " + t),
                o -> executed.add("observation " + o));
        CoordinatorEffect read = new CoordinatorEffect.Read(new ZkRead.Groups());
        CoordinatorEffect close = new CoordinatorEffect.CloseConnection(3);
        CoordinatorEffect cancel = new CoordinatorEffect.CancelTimer(new CoordinatorTimer.LeaseWaitOver());
        CoordinatorEffect notice = new CoordinatorEffect.Notice("n");
        CoordinatorEffect keepAlive = new CoordinatorEffect.KeepAlive();

        router.executeAll(List.of(read, close, cancel, notice, keepAlive));

        assertEquals(List.of("zookeeper " + read, "network " + close, "timer " + cancel, "observation " + notice,
                "zookeeper " + keepAlive), executed);
    }
}
