package shepherd.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The server's one-shot watches: a table for data (and existence) watches and one for child watches, each by path
 * and then by session in the order the sessions set them, which is the order a trigger delivers them in.
 */
final class SimZkWatches {
    private final Map<String, LinkedHashMap<Long, Watch>> dataWatches = new HashMap<>();
    private final Map<String, LinkedHashMap<Long, Watch>> childWatches = new HashMap<>();

    /** Set by a getData or exists; fires on the node's creation, data change or deletion. */
    void addDataWatch(String path, SimZkServerSession session, SimZkRequest request) {
        add(dataWatches, path, session, request);
    }

    /** Set by a getChildren; fires on a change of the node's children or its deletion. */
    void addChildWatch(String path, SimZkServerSession session, SimZkRequest request) {
        add(childWatches, path, session, request);
    }

    /** A dropped connection loses the watches whose setting reply never reached the client. */
    void forgetUnacknowledged(SimZkServerSession session) {
        remove(session, w -> !w.known());
    }

    void forgetAll(SimZkServerSession session) {
        remove(session, w -> true);
    }

    /**
     * Fires and removes the watches {@code type} triggers on {@code path}, once per session even if it watches the
     * path in both tables. A session with no connection attached holds the event until its next handshake.
     */
    void trigger(String path, SimZkWatchEvent.Type type) {
        LinkedHashMap<Long, Watch> fired = new LinkedHashMap<>();
        switch (type) {
            case NODE_CREATED, NODE_DATA_CHANGED -> take(dataWatches, path, fired);
            case NODE_CHILDREN_CHANGED -> take(childWatches, path, fired);
            case NODE_DELETED -> {
                take(dataWatches, path, fired);
                take(childWatches, path, fired);
            }
        }
        SimZkWatchEvent event = new SimZkWatchEvent(type, path);
        for (Watch watch : fired.values()) {
            SimZkServerSession session = watch.session;
            if (!session.alive) {
                continue;
            }
            SimZkToClient item = SimZkToClient.watch(event, watch);
            if (!session.connOpen || !session.client.sendDown(item)) {
                session.held.add(item);
            }
        }
    }

    private static void add(Map<String, LinkedHashMap<Long, Watch>> table, String path, SimZkServerSession session,
            SimZkRequest request) {
        table.computeIfAbsent(path, p -> new LinkedHashMap<>())
                .computeIfAbsent(session.id, id -> new Watch(session))
                .setters.add(request);
    }

    private void remove(SimZkServerSession session, Predicate<Watch> which) {
        for (Map<String, LinkedHashMap<Long, Watch>> table : List.of(dataWatches, childWatches)) {
            Iterator<Map.Entry<String, LinkedHashMap<Long, Watch>>> it = table.entrySet().iterator();
            while (it.hasNext()) {
                LinkedHashMap<Long, Watch> watchers = it.next().getValue();
                Watch watch = watchers.get(session.id);
                if (watch != null && which.test(watch)) {
                    watchers.remove(session.id);
                }
                if (watchers.isEmpty()) {
                    it.remove();
                }
            }
        }
    }

    private static void take(Map<String, LinkedHashMap<Long, Watch>> table, String path,
            LinkedHashMap<Long, Watch> into) {
        LinkedHashMap<Long, Watch> watchers = table.remove(path);
        if (watchers != null) {
            watchers.forEach(into::putIfAbsent);
        }
    }

    /** A session's registration on one path in one table; one per session, as the server keeps one per connection. */
    static final class Watch {
        final SimZkServerSession session;
        final List<SimZkRequest> setters = new ArrayList<>();

        Watch(SimZkServerSession session) {
            this.session = session;
        }

        /** Whether the client knows of this watch (got a reply that set it), and so would re-register it. */
        boolean known() {
            for (SimZkRequest request : setters) {
                if (request.replyArrived) {
                    return true;
                }
            }
            return false;
        }
    }
}
