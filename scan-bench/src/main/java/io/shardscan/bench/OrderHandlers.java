package io.shardscan.bench;

import io.shardscan.annotation.ScanTask;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * The handlers of the sharded scenario's tasks, as {@link ScanTask @ScanTask} methods of one bean: one
 * method for the sharded task, or one per table for the 1024 single-table tasks, which nobody writes by
 * hand. So the bean's class is generated at run time (with Spring's ASM) as a subclass of this one, each
 * method {@code public void tN(Order row)} annotated {@code @ScanTask("<task>")} and calling {@link
 * #handle}: the starter's registry finds, binds and selects columns for them as for a written class.
 * Thread-safe.
 */
public abstract class OrderHandlers {

    /** Ids from here on are pickup rows, each id once across all tables; drained rows count from 1 per table. */
    static final long PICKUP_IDS = 1_000_000_000L;

    private static final AtomicInteger GENERATED = new AtomicInteger();

    /** The columns the handlers read. */
    public record Order(long id, long shardKey) {}

    private volatile LongAdder drained = new LongAdder();
    private volatile Pickups pickups = new Pickups();

    /** What every generated method calls. */
    protected final void handle(Order row) {
        if (row.id() >= PICKUP_IDS) {
            pickups.started(row.id());
        } else {
            drained.increment();
        }
    }

    /** A bean with one {@code @ScanTask} method per task name, noting pickups and drained rows in those given. */
    static OrderHandlers forTasks(List<String> tasks, Pickups pickups, LongAdder drained) {
        OrderHandlers handlers = generate(tasks);
        handlers.pickups = pickups;
        handlers.drained = drained;
        return handlers;
    }

    private static OrderHandlers generate(List<String> tasks) {
        String name = Type.getInternalName(OrderHandlers.class) + "$Generated" + GENERATED.incrementAndGet();
        String base = Type.getInternalName(OrderHandlers.class);
        String order = Type.getDescriptor(Order.class);
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS | ClassWriter.COMPUTE_FRAMES);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC | Opcodes.ACC_SUPER, name, null, base, null);
        MethodVisitor init = writer.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, base, "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        for (int i = 0; i < tasks.size(); i++) {
            MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC, "t" + i, "(" + order + ")V", null, null);
            AnnotationVisitor annotation = method.visitAnnotation(Type.getDescriptor(ScanTask.class), true);
            annotation.visit("value", tasks.get(i));
            annotation.visitEnd();
            method.visitCode();
            method.visitVarInsn(Opcodes.ALOAD, 0);
            method.visitVarInsn(Opcodes.ALOAD, 1);
            method.visitMethodInsn(Opcodes.INVOKEVIRTUAL, base, "handle", "(" + order + ")V", false);
            method.visitInsn(Opcodes.RETURN);
            method.visitMaxs(0, 0);
            method.visitEnd();
        }
        writer.visitEnd();
        try {
            return (OrderHandlers) MethodHandles.lookup()
                    .defineClass(writer.toByteArray())
                    .getConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("could not generate the handlers of " + tasks.size() + " tasks", e);
        }
    }
}
