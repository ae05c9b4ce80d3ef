package shepherd.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup order of {@link ToxiproxyServer} (DESIGN §8), without starting anything. */
class ToxiproxyServerTest {

    private static final java.util.function.BooleanSupplier NO_DOCKER = () -> false;

    @TempDir
    Path temp;

    @Test
    void aDockerEngineIsTheLastResortAfterEveryBinary() {
        ToxiproxyServer.Location location = ToxiproxyServer.locate(Map.of("PATH", temp.resolve("empty").toString()),
                Optional.of(temp.resolve("tools/bin")), () -> true);

        assertEquals(new ToxiproxyServer.Container("ghcr.io/shopify/toxiproxy:2.12.0"), location);
    }

    @Test
    void aBinaryIsPreferredToADockerEngine() throws IOException {
        Path inTools = fakeServerIn("tools");

        ToxiproxyServer.Location location = ToxiproxyServer.locate(Map.of("PATH", temp.resolve("empty").toString()),
                Optional.of(inTools.getParent()), () -> true);

        assertEquals(inTools, ((ToxiproxyServer.Binary) location).executable());
    }

    @Test
    void urlFromTheEnvironmentIsUsedAsIsBeforeAnyBinary() throws IOException {
        Path onPath = fakeServerIn("path");
        Path tools = fakeServerIn("tools").getParent();

        ToxiproxyServer.Location location = ToxiproxyServer.locate(
                Map.of("TOXIPROXY_URL", "http://127.0.0.1:9999", "PATH", onPath.getParent().toString()),
                Optional.of(tools), NO_DOCKER);

        assertEquals(new ToxiproxyServer.External(URI.create("http://127.0.0.1:9999")), location);
    }

    @Test
    void binaryOnPathComesBeforeTheToolsDirectory() throws IOException {
        Path onPath = fakeServerIn("path");
        Path tools = fakeServerIn("tools").getParent();
        String path = temp.resolve("empty") + File.pathSeparator + onPath.getParent();

        ToxiproxyServer.Location location = ToxiproxyServer.locate(Map.of("PATH", path), Optional.of(tools), NO_DOCKER);

        assertEquals(onPath, ((ToxiproxyServer.Binary) location).executable());
    }

    @Test
    void toolsDirectoryOfCiRunIsTheLastBinaryLooked() throws IOException {
        Path inTools = fakeServerIn("tools");

        ToxiproxyServer.Location location = ToxiproxyServer.locate(
                Map.of("PATH", temp.resolve("empty").toString()), Optional.of(inTools.getParent()), NO_DOCKER);

        assertEquals(inTools, ((ToxiproxyServer.Binary) location).executable());
    }

    @Test
    void nonExecutableFileIsNotAServer() throws IOException {
        Path dir = Files.createDirectories(temp.resolve("noexec"));
        Files.createFile(dir.resolve("toxiproxy-server"));

        assertThrows(IllegalStateException.class,
                () -> ToxiproxyServer.locate(Map.of("PATH", dir.toString()), Optional.empty(), NO_DOCKER));
    }

    @Test
    void noServerAnywhereFailsSayingHowToGetOne() {
        Path tools = temp.resolve("tools/bin");

        IllegalStateException failure = assertThrows(IllegalStateException.class,
                () -> ToxiproxyServer.locate(Map.of("PATH", temp.resolve("empty").toString()), Optional.of(tools),
                        NO_DOCKER));

        String message = failure.getMessage();
        assertTrue(message.contains(".ci/run"), message);
        assertTrue(message.contains("github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0"), message);
        assertTrue(message.contains("TOXIPROXY_URL="), message);
        assertTrue(message.contains(tools.toString()), message);
    }

    @Test
    void versionIsReadFromTheJsonBodyOrTheBareBodyOfOldServers() {
        assertEquals("2.12.0", ToxiproxyServer.parseVersion("{\"version\": \"2.12.0\"}"));
        assertEquals("2.5.0", ToxiproxyServer.parseVersion("2.5.0\n"));
    }

    private Path fakeServerIn(String dirName) throws IOException {
        Path dir = Files.createDirectories(temp.resolve(dirName));
        Path server = dir.resolve("toxiproxy-server");
        Files.writeString(server, "#!/bin/sh\n");
        Files.setPosixFilePermissions(server, PosixFilePermissions.fromString("rwxr-xr-x"));
        return server;
    }
}
