package io.shardscan.sample;

import io.shardscan.annotation.ScanTask;
import io.shardscan.core.task.Outcome;
import io.shardscan.core.task.ScanContext;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * Task {@code order-sync} ({@code mode: sync}): pushes each order to the store its row names
 * ({@code endpoint-column: store_id}) over HTTP. A refused or timed-out connection is the store's
 * fault, which the engine counts towards the store's blacklist; a 5xx answer says so explicitly.
 */
@Component
public class OrderSyncJob {

    private final StoreSimulator stores;
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    public OrderSyncJob(StoreSimulator stores) {
        this.stores = stores;
    }

    /**
     * An order to push, mapped by column name.
     *
     * @param orderId the order
     * @param storeId the store that receives it: the endpoint
     */
    public record SyncRow(long orderId, int storeId) {}

    @ScanTask("order-sync")
    public Outcome push(SyncRow row, ScanContext context) throws Exception {
        HttpResponse<Void> response = client.send(
                HttpRequest.newBuilder(stores.url(Integer.parseInt(context.endpoint())))
                        .timeout(Duration.ofSeconds(5))
                        .POST(HttpRequest.BodyPublishers.ofString(Long.toString(row.orderId())))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        return response.statusCode() >= 500
                ? Outcome.endpointDown("store " + row.storeId() + " answered " + response.statusCode())
                : Outcome.done();
    }
}
