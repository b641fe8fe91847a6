package io.shardscan.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The SMS-per-order demo: scans tb_order and "sends" one SMS per order into sms_outbox. */
@SpringBootApplication
@EnableScheduling
@EnableConfigurationProperties(SampleProperties.class)
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
