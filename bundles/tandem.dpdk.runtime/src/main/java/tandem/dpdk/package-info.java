/**
 * The process's DPDK environment for Tandem's DPDK transport: EAL, initialised at most once per JVM, and memif ports
 * opened and closed at will through hot-plug.
 *
 * <p>Why a bundle of its own: EAL cannot be initialised twice in a process, nor cleaned up and initialised again, so
 * it must outlive every update of the transport. This package is the only way another bundle reaches DPDK; the
 * native code behind it stays private to {@code tandem.dpdk.runtime}.
 */
@Export
@Version("1.0.0")
package tandem.dpdk;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
