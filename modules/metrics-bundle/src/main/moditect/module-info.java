/**
 * Micrometer 1.17 (core, commons, observation) with its Prometheus registry, the Prometheus metrics library 1.7 it
 * writes through, and HdrHistogram, repackaged as one named module so that Shepherd's broker can
 * {@code requires io.micrometer.prometheus.bundle} on the module path and jlink can link it into the runtime image
 * (the upstream jars are automatic modules, which jlink refuses).
 *
 * <p>Generated once with {@code jdeps --multi-release 17 --ignore-missing-deps --generate-module-info} on the merged
 * jar and kept by hand: see docs/modules.md. jspecify (annotations), java.sql and java.desktop are only touched by
 * binders Shepherd does not use, hence {@code static}; a {@code static transitive} jspecify broke consumers' compiles.
 * Every API package is exported; the Prometheus library's shaded protobuf stays internal.
 */
module io.micrometer.prometheus.bundle {
    requires static org.jspecify;
    requires static java.sql;
    requires static java.desktop;
    requires java.logging;
    requires jdk.unsupported;
    requires jdk.management;
    requires transitive java.management;

    exports io.micrometer.common;
    exports io.micrometer.common.annotation;
    exports io.micrometer.common.docs;
    exports io.micrometer.common.lang;
    exports io.micrometer.common.lang.internal;
    exports io.micrometer.common.util;
    exports io.micrometer.common.util.internal.logging;
    exports io.micrometer.core.annotation;
    exports io.micrometer.core.aop;
    exports io.micrometer.core.instrument;
    exports io.micrometer.core.instrument.binder;
    exports io.micrometer.core.instrument.binder.cache;
    exports io.micrometer.core.instrument.binder.commonspool2;
    exports io.micrometer.core.instrument.binder.db;
    exports io.micrometer.core.instrument.binder.grpc;
    exports io.micrometer.core.instrument.binder.http;
    exports io.micrometer.core.instrument.binder.httpcomponents;
    exports io.micrometer.core.instrument.binder.httpcomponents.hc5;
    exports io.micrometer.core.instrument.binder.hystrix;
    exports io.micrometer.core.instrument.binder.jersey.server;
    exports io.micrometer.core.instrument.binder.jetty;
    exports io.micrometer.core.instrument.binder.jpa;
    exports io.micrometer.core.instrument.binder.jvm;
    exports io.micrometer.core.instrument.binder.jvm.convention;
    exports io.micrometer.core.instrument.binder.jvm.convention.micrometer;
    exports io.micrometer.core.instrument.binder.jvm.convention.otel;
    exports io.micrometer.core.instrument.binder.kafka;
    exports io.micrometer.core.instrument.binder.logging;
    exports io.micrometer.core.instrument.binder.mongodb;
    exports io.micrometer.core.instrument.binder.netty4;
    exports io.micrometer.core.instrument.binder.okhttp3;
    exports io.micrometer.core.instrument.binder.system;
    exports io.micrometer.core.instrument.binder.tomcat;
    exports io.micrometer.core.instrument.composite;
    exports io.micrometer.core.instrument.config;
    exports io.micrometer.core.instrument.config.validate;
    exports io.micrometer.core.instrument.cumulative;
    exports io.micrometer.core.instrument.distribution;
    exports io.micrometer.core.instrument.distribution.pause;
    exports io.micrometer.core.instrument.docs;
    exports io.micrometer.core.instrument.dropwizard;
    exports io.micrometer.core.instrument.internal;
    exports io.micrometer.core.instrument.kotlin;
    exports io.micrometer.core.instrument.logging;
    exports io.micrometer.core.instrument.noop;
    exports io.micrometer.core.instrument.observation;
    exports io.micrometer.core.instrument.push;
    exports io.micrometer.core.instrument.search;
    exports io.micrometer.core.instrument.simple;
    exports io.micrometer.core.instrument.step;
    exports io.micrometer.core.instrument.util;
    exports io.micrometer.core.ipc.http;
    exports io.micrometer.core.util.internal.logging;
    exports io.micrometer.observation;
    exports io.micrometer.observation.annotation;
    exports io.micrometer.observation.aop;
    exports io.micrometer.observation.contextpropagation;
    exports io.micrometer.observation.docs;
    exports io.micrometer.observation.transport;
    exports io.micrometer.prometheusmetrics;
    exports io.prometheus.metrics.config;
    exports io.prometheus.metrics.core.datapoints;
    exports io.prometheus.metrics.core.exemplars;
    exports io.prometheus.metrics.core.metrics;
    exports io.prometheus.metrics.core.util;
    exports io.prometheus.metrics.expositionformats;
    exports io.prometheus.metrics.expositionformats.generated;
    exports io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0;
    exports io.prometheus.metrics.expositionformats.internal;
    exports io.prometheus.metrics.model.registry;
    exports io.prometheus.metrics.model.snapshots;
    exports io.prometheus.metrics.tracer.common;
    exports org.HdrHistogram;
    exports org.HdrHistogram.packedarray;
}
