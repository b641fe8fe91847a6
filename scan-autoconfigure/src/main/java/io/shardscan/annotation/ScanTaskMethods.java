package io.shardscan.annotation;

import io.shardscan.core.spi.SchemaReport;
import io.shardscan.core.task.InvalidTaskException;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.Row;
import io.shardscan.core.task.RowColumns;
import io.shardscan.core.task.ScanContext;
import io.shardscan.core.task.TaskHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Turns a {@link ScanTask @ScanTask} method of a bean into a core {@link TaskHandler}, checking its
 * signature once, up front. The handlers it builds are thread-safe when the bean is.
 */
public final class ScanTaskMethods {

    /** The supported handler forms, as named in error messages. */
    public static final String FORMS = "supported forms, each returning void or Outcome: (T row),"
            + " (T row, ScanContext context), (List<T> rows), (List<T> rows, ScanContext context),"
            + " where T is a record, a JavaBean with a no-arg constructor and setters, Map<String, Object>"
            + ", io.shardscan.core.task.Row or a MyBatis result type (when a SqlSessionFactory bean exists)";

    private ScanTaskMethods() {}

    /**
     * The {@code @ScanTask} annotation of a method.
     *
     * @throws IllegalArgumentException when the method has none
     */
    public static ScanTask annotation(Method method) {
        ScanTask annotation = AnnotatedElementUtils.findMergedAnnotation(method, ScanTask.class);
        if (annotation == null) {
            throw new IllegalArgumentException(describe("?", method) + " is not annotated with @ScanTask");
        }
        return annotation;
    }

    /**
     * Builds the handler that calls {@code method} on {@code bean}.
     *
     * @param beanName the bean's name, for messages
     * @param bean the bean, possibly an AOP proxy
     * @param method the annotated method, as declared on the bean's user class
     * @return a {@link TaskHandler.PerRow} or, for a {@code List} parameter, a {@link TaskHandler.Batch}
     * @throws InvalidTaskException naming the bean, method, task and the supported forms when the
     *     method cannot be used
     */
    public static TaskHandler handler(String beanName, Object bean, Method method) {
        return handler(beanName, bean, method, null);
    }

    /**
     * Builds the handler that calls {@code method} on {@code bean}, binding rows to the types
     * {@code mapper} supports through it.
     *
     * @param mapper maps rows to types the application maps elsewhere, such as MyBatis result types;
     *     {@code null} for the built-in binding only
     * @see #handler(String, Object, Method)
     */
    public static TaskHandler handler(String beanName, Object bean, Method method, @Nullable RowTypeMapper mapper) {
        Objects.requireNonNull(bean, "bean");
        ScanTask annotation = annotation(method);
        String task = annotation.value();
        Class<?>[] parameters = method.getParameterTypes();
        if (Modifier.isStatic(method.getModifiers())) {
            throw unusable(task, beanName, method, "it is static: make it an instance method");
        }
        if (Modifier.isPrivate(method.getModifiers())) {
            throw unusable(task, beanName, method, "it is private: make it public");
        }
        Class<?> returns = method.getReturnType();
        if (returns != void.class && returns != Void.class && returns != Outcome.class) {
            throw unusable(
                    task, beanName, method, "it returns " + returns.getSimpleName() + ": return void or Outcome");
        }
        if (parameters.length == 0 || parameters.length > 2) {
            throw unusable(task, beanName, method, "it takes " + parameters.length + " parameters");
        }
        if (parameters.length == 2 && parameters[1] != ScanContext.class) {
            throw unusable(
                    task,
                    beanName,
                    method,
                    "its second parameter is " + parameters[1].getSimpleName() + ", not ScanContext");
        }
        boolean batch = parameters[0] == List.class;
        ResolvableType rowType = ResolvableType.forMethodParameter(method, 0);
        if (batch) {
            rowType = rowType.getGeneric(0);
            if (rowType.resolve() == null || rowType.resolve() == Object.class) {
                throw unusable(task, beanName, method, "its List parameter has no element type: declare it as List<T>");
            }
        }
        RowBinder binder;
        try {
            binder = RowBinder.forType(rowType, mapper);
        } catch (IllegalArgumentException e) {
            throw unusable(task, beanName, method, e.getMessage());
        }
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw unusable(task, beanName, method, e.getMessage());
        }
        ReflectionUtils.makeAccessible(invocable);
        return build(bean, invocable, binder, batch, parameters.length == 2);
    }

    /**
     * Checks the handler's row type against the table's columns: every record component or bean
     * property must match a column (case and underscores ignored), or it would be silently
     * {@code null}.
     *
     * @param table the table as inspected, with its column names
     * @return the problems, naming the unmatched components or properties and the columns there are;
     *     empty when all match, or the type takes any columns (a {@code Map}, a {@code Row}, a mapper's
     *     type), or the method is unusable (which {@link #handler} reports)
     */
    public static List<String> rowTypeProblems(
            String beanName, Method method, @Nullable RowTypeMapper mapper, SchemaReport table) {
        ResolvableType rowType = rowType(method);
        RowBinder binder = rowType == null ? null : binder(rowType, mapper);
        if (binder == null || table.columns().isEmpty()) {
            return List.of();
        }
        List<String> columns = table.columns();
        List<String> members = binder.members();
        Map<String, String> columnsByKey = new LinkedHashMap<>();
        columns.forEach(column -> columnsByKey.putIfAbsent(RowBinder.key(column), column));
        List<String> unmatched = members.stream()
                .filter(m -> !columnsByKey.containsKey(RowBinder.key(m)))
                .toList();
        Class<?> type = rowType.resolve();
        String kind = type != null && type.isRecord() ? "component" : "property";
        String takes = "@ScanTask(\"" + annotation(method).value() + "\") on " + describe(beanName, method) + " takes "
                + (type == null ? rowType.toString() : type.getSimpleName()) + ", whose " + kind;
        List<String> problems = new ArrayList<>();
        if (!unmatched.isEmpty()) {
            problems.add(takes + (unmatched.size() == 1 ? " " : "s ") + String.join(", ", unmatched) + " match"
                    + (unmatched.size() == 1 ? "es" : "") + " no column (the columns are " + String.join(", ", columns)
                    + "; case and underscores are ignored): rename the " + kind + " after its column, or remove it");
        }
        // a table with problems of its own (a column of a type the scan cannot use) is reported by them alone
        List<TypeDescriptor> types = table.problems().isEmpty() ? binder.memberTypes() : List.of();
        for (int i = 0; i < types.size(); i++) {
            String column = columnsByKey.get(RowBinder.key(members.get(i)));
            String held = column == null ? null : table.columnClasses().get(column.toLowerCase(Locale.ROOT));
            if (held != null && !RowBinder.convertible(held, types.get(i))) {
                problems.add(takes + " " + members.get(i) + " is "
                        + types.get(i).getType().getSimpleName()
                        + ", which column " + column + " cannot become: a row holds it as " + held
                        + ". Declare " + members.get(i) + " as " + ClassUtils.getShortName(held)
                        + " or a type it converts to" + RowBinder.alsoWorks(held) + ", or point it at another column");
            }
        }
        return problems;
    }

    /**
     * The columns a fetch must read for the handler {@code method}: those its record's components or
     * bean's properties name (the engine adds its own), or every column for a handler taking a
     * {@link Row}, a {@code Map} or a mapper's type.
     *
     * @return {@link RowColumns#ALL} too when the method is unusable (which {@link #handler} reports)
     */
    public static RowColumns rowColumns(Method method, @Nullable RowTypeMapper mapper) {
        ResolvableType rowType = rowType(method);
        RowBinder binder = rowType == null ? null : binder(rowType, mapper);
        return binder == null ? RowColumns.ALL : binder.columns();
    }

    /** The type of the row (or of a {@code List}'s elements) a handler method takes; {@code null} without parameters. */
    private static @Nullable ResolvableType rowType(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length == 0) {
            return null;
        }
        ResolvableType rowType = ResolvableType.forMethodParameter(method, 0);
        return parameters[0] == List.class ? rowType.getGeneric(0) : rowType;
    }

    private static @Nullable RowBinder binder(ResolvableType rowType, @Nullable RowTypeMapper mapper) {
        try {
            return RowBinder.forType(rowType, mapper);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Names a bean's method for messages: {@code bean 'orders' method OrderJobs.send(Order, ScanContext)}. */
    public static String describe(String beanName, Method method) {
        return "bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    private static TaskHandler build(Object bean, Method method, RowBinder binder, boolean batch, boolean withContext) {
        if (batch) {
            return (TaskHandler.Batch) (rows, context) -> {
                List<Object> bound = rows.stream().map(binder::bind).toList();
                return invoke(bean, method, withContext ? new Object[] {bound, context} : new Object[] {bound});
            };
        }
        return (TaskHandler.PerRow) (Row row, ScanContext context) -> {
            Object bound = binder.bind(row);
            return invoke(bean, method, withContext ? new Object[] {bound, context} : new Object[] {bound});
        };
    }

    private static @Nullable Outcome invoke(Object bean, Method method, Object[] args) throws Exception {
        try {
            return (Outcome) method.invoke(bean, args);
        } catch (InvocationTargetException e) {
            // the handler's own exception is what fails the row and becomes its last error
            Throwable cause = e.getTargetException();
            if (cause instanceof Exception exception) {
                throw exception;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new UndeclaredThrowableException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + method, e);
        }
    }

    private static InvalidTaskException unusable(String task, String beanName, Method method, String problem) {
        return new InvalidTaskException("@ScanTask(\"" + task + "\") on " + describe(beanName, method)
                + " cannot be used: " + problem + ". Use one of the " + FORMS);
    }
}
