package io.shardscan.bench;

import io.shardscan.autoconfigure.ScanTaskRegistry;
import io.shardscan.autoconfigure.TaskProperties;
import io.shardscan.core.ScanEngine;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** The tasks of {@code bench_task} as an application registers them: a {@code @ScanTask} bean and its properties. */
final class BenchTasks {

    private BenchTasks() {}

    /** The properties of a task of {@code bench_task}: its id and shard key, {@link Pg#SHARDS} shards, {@code workers}. */
    static TaskProperties ofBenchTable(int workers) {
        TaskProperties properties = new TaskProperties();
        properties.setTable(Pg.TABLE);
        properties.setIdColumn("id");
        properties.setShardKeyColumn("shard_key");
        properties.setShards(Pg.SHARDS);
        properties.setWorkers(workers);
        return properties;
    }

    /**
     * The same as {@code scan.tasks.<task>.*} properties, for a Spring Boot application ({@link ScanApplication}).
     */
    static Map<String, Object> propertiesOfBenchTable(String task, int workers) {
        String prefix = "scan.tasks." + task + ".";
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(prefix + "table", Pg.TABLE);
        properties.put(prefix + "id-column", "id");
        properties.put(prefix + "shard-key-column", "shard_key");
        properties.put(prefix + "shards", Pg.SHARDS);
        properties.put(prefix + "workers", workers);
        return properties;
    }

    /** Task {@code task} with the {@code @ScanTask} method of {@code bean}, as the registry pairs them. */
    static ScanEngine.ScanTask registered(String task, Object bean, TaskProperties properties) {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerSingleton(task + "-jobs", bean);
        return new ScanTaskRegistry(beans, null).tasks(Map.of(task, properties)).get(0);
    }
}
