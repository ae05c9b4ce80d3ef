package shepherd.chaos.unsafe;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import shepherd.broker.spi.TestSupport;

/**
 * Builds the jar that turns a broker launched from the runtime image into a fault-injection test build: it holds
 * {@link FencingOffTestSupport} and {@code META-INF/services/shepherd.broker.spi.TestSupport} naming it, nothing else
 * (the interface itself is in the image).
 *
 * <p><b>How it reaches the image's JVM.</b> The launcher runs {@code exec "$DIR/java" -m shepherd.cli/...}, which
 * still has a class path: the {@code java} launcher takes it from the {@code CLASSPATH} environment variable when no
 * {@code -cp} is given, also with {@code -m}. The jar's class then lives in the unnamed module, and the broker's
 * {@code ServiceLoader.load(TestSupport.class)} (module {@code shepherd.broker} declares {@code uses}) finds it
 * through the services file, as it finds every class-path provider; the unnamed module reads every module and
 * {@code shepherd.broker.spi} is exported, so it can implement the interface. {@link #putOnClassPath} sets that
 * variable. {@code JDK_JAVA_OPTIONS=-cp <jar>} works too, but the launcher then prints a note on stderr.
 */
public final class TestSupportJar {
    /** The jar's file name inside the directory given to {@link #build}. */
    public static final String FILE_NAME = "shepherd-test-support.jar";

    private TestSupportJar() {
    }

    /** Writes {@value #FILE_NAME} into {@code dir} (replacing an earlier one) and returns its path. */
    public static Path build(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path jar = dir.resolve(FILE_NAME);
        Class<?> provider = FencingOffTestSupport.class;
        String classEntry = provider.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file);
                InputStream bytes = provider.getClassLoader().getResourceAsStream(classEntry)) {
            if (bytes == null) {
                throw new IOException("cannot read the class file " + classEntry + " of " + provider.getName());
            }
            out.putNextEntry(new JarEntry(classEntry));
            bytes.transferTo(out);
            out.closeEntry();
            out.putNextEntry(new JarEntry("META-INF/services/" + TestSupport.class.getName()));
            out.write((provider.getName() + "\n").getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        return jar;
    }

    /** Puts {@code jar} on the class path of the JVM {@code process} will start (the image launcher's too). */
    public static ProcessBuilder putOnClassPath(ProcessBuilder process, Path jar) {
        process.environment().put("CLASSPATH", jar.toAbsolutePath().toString());
        return process;
    }
}
