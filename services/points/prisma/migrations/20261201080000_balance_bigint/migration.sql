-- A balance is the sum of every grant a customer ever had: with INTEGER it overflowed past 2^31 and the
-- grants that would cross it were parked for good (22003). Each grant stays INTEGER (the order API bounds
-- an order total to what INTEGER holds), the sum does not.
ALTER TABLE "accounts" ALTER COLUMN "balance" TYPE BIGINT;
