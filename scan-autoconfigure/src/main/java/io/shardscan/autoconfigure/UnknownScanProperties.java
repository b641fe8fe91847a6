package io.shardscan.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * Finds {@code scan.*} keys that no property of {@link ScanProperties} (with its tasks and tiers)
 * takes, such as {@code scan.tasks.orders.page-sise}, and suggests the closest known name. The known
 * names are read from the properties classes. Environment variables are not checked: their names
 * cannot tell {@code PAGE_SIZE} from {@code page.size}.
 */
final class UnknownScanProperties {

    private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of("scan");
    private static final ConfigurationPropertyName TASKS = ConfigurationPropertyName.of("scan.tasks");
    private static final int CLOSE = 2;

    private UnknownScanProperties() {}

    /**
     * The unknown keys found.
     *
     * @param problems one message per unknown key, with a "did you mean" when a known name is close
     * @param tasks the names of the tasks with an unknown key under {@code scan.tasks.<name>}
     */
    record Found(List<String> problems, Set<String> tasks) {}

    /** The unknown keys; empty when none. */
    static Found find(ConfigurableEnvironment environment) {
        Set<String> unknown = new LinkedHashSet<>();
        Set<String> tasks = new LinkedHashSet<>();
        Map<String, ScanPropertyGroup> groups = new LinkedHashMap<>();
        SpringFactoriesLoader.forDefaultResourceLocation(UnknownScanProperties.class.getClassLoader())
                .load(ScanPropertyGroup.class)
                .forEach(group -> groups.put(uniform(group.name()), group));
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof SystemEnvironmentPropertySource
                    || source.getName().equals("configurationProperties")) {
                continue;
            }
            ConfigurationPropertySource adapted = ConfigurationPropertySource.from(source);
            if (!(adapted instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.stream().filter(ROOT::isAncestorOf).forEach(name -> {
                ScanPropertyGroup group = groups.get(name.getElement(1, ConfigurationPropertyName.Form.UNIFORM));
                String problem = group == null
                        ? check(name, 1, ResolvableType.forClass(ScanProperties.class))
                        : check(name, 2, ResolvableType.forClass(group.type()));
                if (problem != null) {
                    unknown.add(problem);
                    if (TASKS.isAncestorOf(name) && name.getNumberOfElements() > 2) {
                        tasks.add(name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL));
                    }
                }
            });
        }
        return new Found(List.copyOf(unknown), Set.copyOf(tasks));
    }

    /** Walks the name's elements from {@code index} down the type; the problem, or null when known. */
    private static @Nullable String check(ConfigurationPropertyName name, int index, ResolvableType type) {
        if (index >= name.getNumberOfElements()) {
            return null;
        }
        Class<?> raw = type.toClass();
        if (Map.class.isAssignableFrom(raw)) {
            // the element is a key of the user's choosing, such as a task name
            return check(name, index + 1, type.asMap().getGeneric(1));
        }
        if (Collection.class.isAssignableFrom(raw)) {
            return name.isNumericIndex(index)
                    ? check(name, index + 1, type.asCollection().getGeneric(0))
                    : unknown(name, index, List.of());
        }
        if (!raw.getName().startsWith("io.shardscan.") || raw.isEnum()) {
            // a value such as a Duration or a String has no keys below it
            return unknown(name, index, List.of());
        }
        Map<String, ResolvableType> properties = properties(raw);
        String element = name.getElement(index, ConfigurationPropertyName.Form.UNIFORM);
        for (Map.Entry<String, ResolvableType> property : properties.entrySet()) {
            if (uniform(property.getKey()).equals(element)) {
                return check(name, index + 1, property.getValue());
            }
        }
        return unknown(name, index, properties.keySet());
    }

    private static Map<String, ResolvableType> properties(Class<?> type) {
        Map<String, ResolvableType> properties = new LinkedHashMap<>();
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")) {
                properties.put(
                        DataObjectPropertyName.toDashedForm(descriptor.getName()),
                        ResolvableType.forMethodReturnType(descriptor.getReadMethod()));
            }
        }
        return properties;
    }

    /** The name of {@code known} within a typo of {@code name} (case and dashes aside), or {@code null}. */
    static @Nullable String closest(String name, Collection<String> known) {
        return known.stream()
                .min(Comparator.comparingInt(k -> distance(uniform(k), uniform(name))))
                .filter(k -> distance(uniform(k), uniform(name)) <= CLOSE)
                .orElse(null);
    }

    private static String unknown(ConfigurationPropertyName name, int index, Collection<String> known) {
        String element = name.getElement(index, ConfigurationPropertyName.Form.DASHED);
        String message = name + " is not a Shardscan property: '" + element + "' is unknown";
        String closest = closest(element, known);
        if (closest != null) {
            return message + "; did you mean '" + closest + "'?";
        }
        return known.isEmpty()
                ? message + "; remove it"
                : message + ", known here: " + String.join(", ", new ArrayList<>(known)) + "; remove or correct it";
    }

    private static String uniform(String dashed) {
        return dashed.replace("-", "").toLowerCase(Locale.ROOT);
    }

    /** Levenshtein distance: the fewest single-character edits that turn one into the other. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
