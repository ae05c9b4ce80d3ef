/**
 * Apache ZooKeeper 3.9.5 (client, server, jute records) with the two libraries its server needs (Dropwizard
 * metrics-core and snappy-java's pure-Java classes), repackaged as one named module so that Shepherd's modules can
 * {@code requires org.apache.zookeeper} on the module path and jlink can link it into the runtime image.
 *
 * <p>Generated once with {@code jdeps --multi-release 17 --generate-module-info} on the merged jar and kept by hand:
 * see docs/modules.md. Every package is exported because the upstream jars export everything implicitly.
 */
module org.apache.zookeeper {
    requires io.netty.buffer;
    requires io.netty.common;
    requires io.netty.transport.classes.epoll;
    requires java.logging;
    requires java.naming;
    requires java.security.jgss;
    requires org.apache.commons.io;

    requires transitive io.netty.handler;
    requires transitive io.netty.transport;
    requires transitive java.management;
    requires transitive java.security.sasl;
    requires transitive org.slf4j;

    exports com.codahale.metrics;
    exports org.apache.jute;
    exports org.apache.jute.compiler;
    exports org.apache.jute.compiler.generated;
    exports org.apache.zookeeper;
    exports org.apache.zookeeper.admin;
    exports org.apache.zookeeper.audit;
    exports org.apache.zookeeper.cli;
    exports org.apache.zookeeper.client;
    exports org.apache.zookeeper.common;
    exports org.apache.zookeeper.compat;
    exports org.apache.zookeeper.data;
    exports org.apache.zookeeper.jmx;
    exports org.apache.zookeeper.metrics;
    exports org.apache.zookeeper.metrics.impl;
    exports org.apache.zookeeper.proto;
    exports org.apache.zookeeper.server;
    exports org.apache.zookeeper.server.admin;
    exports org.apache.zookeeper.server.auth;
    exports org.apache.zookeeper.server.command;
    exports org.apache.zookeeper.server.controller;
    exports org.apache.zookeeper.server.embedded;
    exports org.apache.zookeeper.server.metric;
    exports org.apache.zookeeper.server.persistence;
    exports org.apache.zookeeper.server.quorum;
    exports org.apache.zookeeper.server.quorum.auth;
    exports org.apache.zookeeper.server.quorum.flexible;
    exports org.apache.zookeeper.server.util;
    exports org.apache.zookeeper.server.watch;
    exports org.apache.zookeeper.txn;
    exports org.apache.zookeeper.util;
    exports org.apache.zookeeper.version;
    exports org.xerial.snappy;
    exports org.xerial.snappy.buffer;
    exports org.xerial.snappy.pool;
}
