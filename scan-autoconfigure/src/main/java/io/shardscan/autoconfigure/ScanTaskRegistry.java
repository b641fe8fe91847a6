package io.shardscan.autoconfigure;

import io.shardscan.annotation.RowTypeMapper;
import io.shardscan.annotation.ScanTask;
import io.shardscan.annotation.ScanTaskMethods;
import io.shardscan.core.ScanEngine;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.RangeJob;
import io.shardscan.core.task.RangeTask;
import io.shardscan.core.task.TaskDefinition;
import io.shardscan.core.task.TaskHandler;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@link ScanTask @ScanTask} methods of the application's beans and pairs each with its
 * {@code scan.tasks.<name>} configuration. Reads bean classes without wrapping beans, so proxies
 * stay as they are; meant to be called once, when the engine is built.
 */
public class ScanTaskRegistry {

    private final ConfigurableListableBeanFactory beanFactory;
    private final @Nullable RowTypeMapper mapper;

    /** A registry whose handlers take MyBatis result types when the bean factory has one {@code SqlSessionFactory}. */
    public ScanTaskRegistry(ConfigurableListableBeanFactory beanFactory) {
        this(beanFactory, RowTypeMapper.mybatis(beanFactory));
    }

    /**
     * A registry whose handlers' row types go through {@code mapper} where it supports them.
     *
     * @param mapper {@code null} for the built-in record, JavaBean and map binding only
     */
    public ScanTaskRegistry(ConfigurableListableBeanFactory beanFactory, @Nullable RowTypeMapper mapper) {
        this.beanFactory = Objects.requireNonNull(beanFactory, "beanFactory");
        this.mapper = mapper;
    }

    /**
     * The configured tasks with their handlers, in configuration order.
     *
     * @param configured the {@code scan.tasks} properties by task name
     * @throws InvalidTaskException listing every problem found, each naming the task, bean or property
     *     and the fix: a task without a handler, a handler without a task, two handlers for one task,
     *     an unusable handler signature or an invalid task setting
     */
    public List<ScanEngine.ScanTask> tasks(Map<String, TaskProperties> configured) {
        Found found = find(configured);
        if (!found.problems().isEmpty()) {
            throw new InvalidTaskException(found.problems());
        }
        return found.tasks();
    }

    /**
     * What {@link #tasks(Map)} finds, without throwing: the tasks that could be built, the problems
     * found, and a check of each handler's row type against its table's columns.
     */
    public record Found(
            List<ScanEngine.ScanTask> tasks,
            List<String> problems,
            ScanEngine.TableCheck rowTypes,
            List<RangeJob> ranges,
            Map<String, String> notRunHere) {

        /** What was found without range tasks. */
        public Found(List<ScanEngine.ScanTask> tasks, List<String> problems, ScanEngine.TableCheck rowTypes) {
            this(tasks, problems, rowTypes, List.of(), Map.of());
        }
    }

    /**
     * The configured tasks that could be built, every problem found (as {@link #tasks(Map)} lists
     * them) and the row type check of their handlers.
     */
    public Found find(Map<String, TaskProperties> configured) {
        return find(configured, List.of());
    }

    /**
     * The same on a node of {@code nodeTags}: a task this node does not run (scan.tasks.X.enabled false,
     * or node tags it lacks) is checked as the others are but left out, with why.
     */
    public Found find(Map<String, TaskProperties> configured, List<String> nodeTags) {
        Map<String, List<HandlerMethod>> handlers = discover();
        List<String> problems = new ArrayList<>();
        handlers.forEach((task, methods) -> {
            if (methods.size() > 1) {
                problems.add("@ScanTask(\"" + task + "\") is on " + methods.size() + " methods: "
                        + methods.stream().map(HandlerMethod::describe).collect(Collectors.joining(" and "))
                        + ": keep one handler per task");
            } else if (!configured.containsKey(task)) {
                List<String> unhandled = configured.keySet().stream()
                        .filter(name -> !handlers.containsKey(name))
                        .toList();
                String typo = UnknownScanProperties.closest(task, unhandled);
                problems.add("@ScanTask(\"" + task + "\") on " + methods.get(0).describe() + " has no scan.tasks."
                        + task + " configuration: "
                        + (typo != null
                                ? "did you mean @ScanTask(\"" + typo + "\"), configured and without a handler? Or add"
                                : "add")
                        + " scan.tasks." + task + ".table=<the table to scan> (with its column settings) or remove the"
                        + " annotation");
            }
        });
        List<ScanEngine.ScanTask> tasks = new ArrayList<>();
        List<RangeJob> ranges = new ArrayList<>();
        Map<String, String> notRunHere = new LinkedHashMap<>();
        configured.forEach((task, properties) -> {
            String elsewhere = properties.notRunOn(task, nodeTags);
            if (elsewhere != null) {
                notRunHere.put(task, elsewhere);
            }
            List<HandlerMethod> methods = handlers.getOrDefault(task, List.of());
            if (methods.isEmpty()) {
                problems.add("scan.tasks." + task + " is configured but no bean has a @ScanTask(\"" + task
                        + "\") method: add one or remove the configuration");
            }
            try {
                if (properties.rangeMode()) {
                    RangeTask range = properties.toRangeTask(task);
                    if (methods.size() == 1) {
                        HandlerMethod method = methods.get(0);
                        // a handler type that names its columns has its pages read only those, as a status task's
                        RangeTask reading = range.withDefinition(
                                range.definition().withRowColumns(ScanTaskMethods.rowColumns(method.method, mapper)));
                        if (elsewhere == null) {
                            ranges.add(new RangeJob(reading, method.handler(mapper), method.transactional()));
                        }
                    }
                    return;
                }
                TaskDefinition definition = properties.toDefinition(task);
                if (methods.size() == 1 && elsewhere == null) {
                    HandlerMethod method = methods.get(0);
                    tasks.add(new ScanEngine.ScanTask(
                            definition.withRowColumns(ScanTaskMethods.rowColumns(method.method, mapper)),
                            method.handler(mapper),
                            method.transactional()));
                }
            } catch (InvalidTaskException e) {
                problems.add(e.getMessage());
            }
        });
        Map<String, HandlerMethod> byTask = new LinkedHashMap<>();
        handlers.forEach((task, methods) -> {
            if (methods.size() == 1) {
                byTask.put(task, methods.get(0));
            }
        });
        ScanEngine.TableCheck rowTypes = (definition, report) -> {
            HandlerMethod method = byTask.get(definition.name());
            return method == null
                    ? List.of()
                    : ScanTaskMethods.rowTypeProblems(method.beanName, method.method, mapper, report);
        };
        return new Found(tasks, problems, rowTypes, ranges, notRunHere);
    }

    private Map<String, List<HandlerMethod>> discover() {
        Map<String, List<HandlerMethod>> handlers = new LinkedHashMap<>();
        for (String beanName : beanFactory.getBeanNamesForType(Object.class)) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue;
            }
            Class<?> type = targetClass(beanName);
            if (type == null || !AnnotationUtils.isCandidateClass(type, ScanTask.class)) {
                continue;
            }
            Map<Method, ScanTask> methods =
                    MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<ScanTask>)
                            method -> AnnotatedElementUtils.findMergedAnnotation(method, ScanTask.class));
            methods.forEach((method, annotation) -> handlers.computeIfAbsent(annotation.value(), t -> new ArrayList<>())
                    .add(new HandlerMethod(beanName, method)));
        }
        return handlers;
    }

    private @Nullable Class<?> targetClass(String beanName) {
        try {
            // a bean created already tells its real class; others are judged by their definition
            Object singleton = beanFactory.containsSingleton(beanName) ? beanFactory.getSingleton(beanName) : null;
            Class<?> type = singleton != null && !(singleton instanceof FactoryBean<?>)
                    ? AopUtils.getTargetClass(singleton)
                    : AutoProxyUtils.determineTargetClass(beanFactory, beanName);
            return type == null ? null : ClassUtils.getUserClass(type);
        } catch (RuntimeException e) {
            // like @EventListener discovery: a bean whose type cannot be resolved has no handlers we can see
            return null;
        }
    }

    private final class HandlerMethod {
        private final String beanName;
        private final Method method;

        private HandlerMethod(String beanName, Method method) {
            this.beanName = beanName;
            this.method = method;
        }

        String describe() {
            return ScanTaskMethods.describe(beanName, method);
        }

        boolean transactional() {
            return AnnotatedElementUtils.findMergedAnnotation(method, ScanTask.class)
                    .transactional();
        }

        TaskHandler handler(@Nullable RowTypeMapper mapper) {
            return ScanTaskMethods.handler(beanName, beanFactory.getBean(beanName), method, mapper);
        }
    }
}
