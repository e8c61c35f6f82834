package tandem.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.util.tracker.ServiceTrackerCustomizer;

/**
 * The services of one type that other bundles register, each fetched on first use rather than when it is
 * registered. A tracker, not a DS reference: the replication components reference the server's hub, and a
 * reference back would make a cycle that SCR resolves only sometimes at startup; and a plain tracker fetches a DS
 * service from inside its registration, which fails while SCR is still activating it and is never retried.
 */
final class LazyServices<T> implements AutoCloseable {

    private final BundleContext context;
    private final ServiceTracker<T, AtomicReference<T>> tracker;

    LazyServices(BundleContext context, Class<T> type) {
        this.context = context;
        this.tracker = new ServiceTracker<>(context, type, new ServiceTrackerCustomizer<T, AtomicReference<T>>() {
            @Override
            public AtomicReference<T> addingService(ServiceReference<T> ref) {
                return new AtomicReference<>();
            }

            @Override
            public void modifiedService(ServiceReference<T> ref, AtomicReference<T> held) {
            }

            @Override
            public void removedService(ServiceReference<T> ref, AtomicReference<T> held) {
                if (held.getAndSet(null) != null) {
                    context.ungetService(ref);
                }
            }
        });
        tracker.open();
    }

    /** @return every registered service that is active, fetching those not fetched yet */
    List<T> all() {
        List<T> out = new ArrayList<>();
        for (var tracked : tracker.getTracked().entrySet()) {
            T service = tracked.getValue().get();
            if (service == null) {
                T fetched = context.getService(tracked.getKey());
                if (fetched == null) {
                    continue; // still activating
                }
                if (tracked.getValue().compareAndSet(null, fetched)) {
                    service = fetched;
                } else {
                    context.ungetService(tracked.getKey());
                    service = tracked.getValue().get();
                }
            }
            if (service != null) {
                out.add(service);
            }
        }
        return out;
    }

    @Override
    public void close() {
        tracker.close();
    }
}
