package tandem.protocol.config;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.function.Supplier;

/**
 * A configuration change as every Tandem component takes it in its {@code @Modified} method: validated whole before
 * anything of it applies, and, when a property is invalid, refused with the reason logged while the running
 * configuration stays.
 */
public final class ConfigChange {

    private ConfigChange() {
    }

    /**
     * @param log      the component's logger, which says why a change was refused
     * @param validate makes the settings of the changed configuration, or throws {@link IllegalArgumentException}
     *                 naming the invalid property ({@link PropertyCheck})
     * @return the settings, or null when the change was refused
     */
    public static <S> S validated(Logger log, Supplier<S> validate) {
        try {
            return validate.get();
        } catch (IllegalArgumentException e) {
            log.log(Level.ERROR, "configuration change refused, the running configuration stays: {0}",
                    e.getMessage());
            return null;
        }
    }

    /**
     * Applies a change that validates as it applies (it throws before it changes anything).
     *
     * @param log   the component's logger, which says why a change was refused
     * @param apply validates and applies the changed configuration, or throws {@link IllegalArgumentException}
     *              naming the invalid property
     */
    public static void apply(Logger log, Runnable apply) {
        validated(log, () -> {
            apply.run();
            return Boolean.TRUE;
        });
    }
}
