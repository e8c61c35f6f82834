/**
 * The node's home: the directory that holds its {@code etc/}, {@code deploy/}, {@code data/} and
 * {@code felix-cache/}, named by the framework property {@value tandem.api.home.NodeHome#PROPERTY}. One component
 * reads that property ({@code tandem.protocol} provides it); every other component that keeps files under the home
 * takes a {@link tandem.api.home.NodeHome}.
 */
@Export
@Version("1.0.0")
package tandem.api.home;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
