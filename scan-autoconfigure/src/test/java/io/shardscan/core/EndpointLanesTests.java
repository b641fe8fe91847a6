package io.shardscan.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardscan.core.task.EndpointRules;
import io.shardscan.core.task.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** How a page of a task with an endpoint column is split into lanes. */
class EndpointLanesTests {

    private static final EndpointRules STORES = EndpointRules.of("store_id");

    private static Row row(long id, long key, int store) {
        Map<String, Object> columns = new HashMap<>();
        columns.put("order_id", id);
        columns.put("store_id", store);
        return new Row(id, key, 0, columns);
    }

    @Test
    void rowsOfOneEndpointShareALaneWhateverTheirKeys() {
        List<Row> page = new ArrayList<>();
        for (long id = 1; id <= 400; id++) {
            page.add(row(id, id, (int) (id % 20)));
        }
        List<List<Row>> lanes = Lanes.split(page, 8, STORES, false);
        for (List<Row> lane : lanes) {
            assertThat(lane).isSortedAccordingTo((a, b) -> Long.compare(a.id(), b.id()));
        }
        Map<String, Long> lanesPerStore = new HashMap<>();
        for (List<Row> lane : lanes) {
            lane.stream().map(STORES::endpointOf).distinct().forEach(s -> lanesPerStore.merge(s, 1L, Long::sum));
        }
        assertThat(lanesPerStore).hasSize(20).allSatisfy((store, count) -> assertThat(count)
                .as("lanes of store %s", store)
                .isEqualTo(1));
        assertThat(lanes).hasSizeGreaterThan(1);
    }

    @Test
    void aKeyWhoseRowsGoToSeveralEndpointsKeepsThemInOneLane() {
        List<Row> page = new ArrayList<>();
        for (long id = 1; id <= 400; id++) {
            page.add(row(id, id % 50, (int) (id % 20)));
        }
        // key 7 also has a row for every store
        for (int store = 0; store < 20; store++) {
            page.add(row(1000 + store, 7, store));
        }
        List<List<Row>> lanes = Lanes.split(page, 8, STORES, true);
        Set<Integer> lanesOfKey7 = new java.util.HashSet<>();
        for (int i = 0; i < lanes.size(); i++) {
            for (Row row : lanes.get(i)) {
                if (row.shardKey() == 7) {
                    lanesOfKey7.add(i);
                }
            }
        }
        assertThat(lanesOfKey7).hasSize(1);
        Map<String, Set<Integer>> lanesPerStore = new HashMap<>();
        for (int i = 0; i < lanes.size(); i++) {
            int lane = i;
            lanes.get(i).forEach(r -> lanesPerStore
                    .computeIfAbsent(STORES.endpointOf(r), s -> new java.util.HashSet<>())
                    .add(lane));
        }
        assertThat(lanesPerStore.values()).allSatisfy(set -> assertThat(set).hasSize(1));
        assertThat(lanes.stream().mapToInt(List::size).sum()).isEqualTo(page.size());
        assertThat(lanes.stream().flatMap(List::stream).map(Row::id).collect(Collectors.toSet()))
                .hasSize(page.size());
    }
}
