package shepherd.coordination;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.state.Action;
import net.jqwik.api.state.ActionChain;
import net.jqwik.api.state.ActionChainArbitrary;
import net.jqwik.api.state.Transformer;
import shepherd.coordination.defect.Defect;

/**
 * The actions of the stateful tests, as plain records so that a shrunk chain reads as a script, and two ways to
 * draw them: jqwik arbitraries (for the properties, with shrinking) and a seeded {@link Random} (for the negative
 * control, which must show that the checks do fail on a broken coordinator). Every step is a no-op when its
 * consumer can no longer act, so a chain stays valid however it is shrunk.
 */
final class CoordinatorStatefulSteps {
    private CoordinatorStatefulSteps() {}

    sealed interface Step {
        void run(CoordinatorStatefulHarness h);

        default void apply(CoordinatorStatefulHarness h) {
            h.beginAction();
            run(h);
        }
    }

    /** A consumer from the pool registers (a restart, if it already is a member) on a new connection. */
    record Register(String consumerId, SortedMap<String, Integer> streamsByTopic, int pingIntervalMs,
            short maxPingRetries, boolean responsive) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.register(consumerId, streamsByTopic, pingIntervalMs, maxPingRetries, responsive);
        }
    }

    record Leave(String consumerId) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.leave(consumerId);
        }
    }

    record CloseConnection(String consumerId) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.closeConnection(consumerId);
        }
    }

    record AdvanceTime(long ms) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.advance(ms);
        }
    }

    record AddPartitions(String topic, int count, int brokerId) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.addPartitions(topic, count, brokerId);
        }
    }

    record CommitOffset(String consumerId, boolean owned, int pick, long delta) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.commitOffset(consumerId, owned, pick, delta);
        }
    }

    /** A retried or reordered OffsetCommit: one sent before, sent again. */
    record RepeatCommit(String consumerId, int back) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.repeatCommit(consumerId, back);
        }
    }

    record Deliver(int messages) implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.deliver(messages);
        }
    }

    record DeliverAll() implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.deliverAll();
        }
    }

    /** Quiesce: every message delivered and time run past every failure deadline; the quiesced check follows. */
    record Settle() implements Step {
        public void run(CoordinatorStatefulHarness h) {
            h.settle();
        }
    }

    // ================================================================== jqwik

    /**
     * Chains of every step but {@link RepeatCommit} against a coordinator with the given defects switched on; with
     * {@code retriedCommits}, commits are more frequent and consumers also repeat earlier ones.
     */
    static ActionChainArbitrary<CoordinatorStatefulHarness> chains(java.util.Set<Defect> defects, int maxSteps,
            boolean retriedCommits) {
        // Weights: the retried-commit variant drops what cannot matter to offsets and drains in small sips, so that
        // several commits meet one write in flight.
        boolean r = retriedCommits;
        ActionChainArbitrary<CoordinatorStatefulHarness> chains = ActionChain.<CoordinatorStatefulHarness>startWith(
                        () -> CoordinatorStatefulHarness.elected(defects))
                .withAction(r ? 2 : 5, independent(registers()))
                .withAction(r ? 1 : 3, independent(Arbitraries.longs().between(1, 2_000).map(AdvanceTime::new)))
                .withAction(r ? 8 : 3, dependent(h -> !h.model.active().isEmpty(), h -> Combinators.combine(
                        Arbitraries.of(List.copyOf(r && !h.fetching().isEmpty() ? h.fetching() : h.model.active())),
                        Arbitraries.of(true, true, true, false), Arbitraries.integers().between(0, 7),
                        Arbitraries.longs().between(0, 20)).as(CommitOffset::new)))
                .withAction(4, independent(Arbitraries.integers().between(1, r ? 2 : 4).map(Deliver::new)))
                .withAction(r ? 1 : 2, independent(Arbitraries.just(new Settle())))
                .withMaxTransformations(maxSteps);
        if (r) {
            return chains.withAction(5, dependent(h -> !h.fetching().isEmpty(), h -> Combinators.combine(
                    Arbitraries.of(h.fetching()), Arbitraries.integers().between(0, 2)).as(RepeatCommit::new)));
        }
        return chains
                .withAction(2, dependent(h -> !h.model.active().isEmpty(),
                        h -> Arbitraries.of(List.copyOf(h.model.active())).map(Leave::new)))
                .withAction(1, dependent(h -> !h.model.active().isEmpty(),
                        h -> Arbitraries.of(List.copyOf(h.model.active())).map(CloseConnection::new)))
                .withAction(1, independent(Combinators.combine(Arbitraries.of(CoordinatorStatefulHarness.TOPICS),
                        Arbitraries.integers().between(1, 2), Arbitraries.integers().between(0, 1)).as(AddPartitions::new)))
                .withAction(1, independent(Arbitraries.just(new DeliverAll())));
    }

    private static Arbitrary<Step> registers() {
        Arbitrary<SortedMap<String, Integer>> subscriptions = Arbitraries.maps(
                        Arbitraries.of(CoordinatorStatefulHarness.TOPICS), Arbitraries.integers().between(1, 2))
                .ofMinSize(1).ofMaxSize(2).map(TreeMap::new);
        return Combinators.combine(Arbitraries.of(CoordinatorStatefulHarness.CONSUMERS), subscriptions,
                Arbitraries.of(100, 200, 300), Arbitraries.shorts().between((short) 0, (short) 2),
                Arbitraries.frequency(net.jqwik.api.Tuple.of(6, true), net.jqwik.api.Tuple.of(1, false)))
                .as(Register::new);
    }

    private static Action<CoordinatorStatefulHarness> independent(Arbitrary<? extends Step> steps) {
        return new Action.Independent<>() {
            @Override
            public Arbitrary<Transformer<CoordinatorStatefulHarness>> transformer() {
                return steps.map(CoordinatorStatefulSteps::transformer);
            }
        };
    }

    private static Action<CoordinatorStatefulHarness> dependent(Predicate<CoordinatorStatefulHarness> precondition,
            Function<CoordinatorStatefulHarness, Arbitrary<? extends Step>> steps) {
        return new Action.Dependent<>() {
            @Override
            public boolean precondition(CoordinatorStatefulHarness h) {
                return precondition.test(h);
            }

            @Override
            public Arbitrary<Transformer<CoordinatorStatefulHarness>> transformer(CoordinatorStatefulHarness h) {
                return steps.apply(h).map(CoordinatorStatefulSteps::transformer);
            }
        };
    }

    private static Transformer<CoordinatorStatefulHarness> transformer(Step step) {
        return Transformer.mutate(step.toString(), step::apply);
    }

    // ================================================================== seeded, without jqwik

    /** One step drawn from {@code random}, with the same kinds and weights as {@link #chains}. */
    static Step next(Random random, CoordinatorStatefulHarness h) {
        List<String> active = new ArrayList<>(h.model.active());
        int roll = random.nextInt(22);
        if (roll < 5 || (roll < 8 && active.isEmpty()) || (roll >= 11 && roll < 15 && active.isEmpty())) {
            TreeMap<String, Integer> topics = new TreeMap<>();
            int n = 1 + random.nextInt(2);
            while (topics.size() < n) {
                topics.put(pick(random, CoordinatorStatefulHarness.TOPICS), 1 + random.nextInt(2));
            }
            return new Register(pick(random, CoordinatorStatefulHarness.CONSUMERS), topics,
                    100 * (1 + random.nextInt(3)), (short) random.nextInt(3), random.nextInt(7) != 0);
        } else if (roll < 7) {
            return new Leave(pick(random, active));
        } else if (roll < 8) {
            return new CloseConnection(pick(random, active));
        } else if (roll < 11) {
            return new AdvanceTime(1 + random.nextInt(2_000));
        } else if (roll < 14) {
            return new CommitOffset(pick(random, active), random.nextInt(4) != 0, random.nextInt(8), random.nextInt(21));
        } else if (roll < 15) {
            return new AddPartitions(pick(random, CoordinatorStatefulHarness.TOPICS), 1 + random.nextInt(2), random.nextInt(2));
        } else if (roll < 19) {
            return new Deliver(1 + random.nextInt(4));
        } else if (roll < 20) {
            return new DeliverAll();
        }
        return new Settle();
    }

    private static <T> T pick(Random random, List<T> from) {
        return from.get(random.nextInt(from.size()));
    }
}
